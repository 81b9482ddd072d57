import { Secret, TOTP } from 'otpauth';
import type { APIRequestContext, Page } from '@playwright/test';
import { apiToken, expect, signIn, test } from './fixtures.ts';

/**
 * Single sign-on in the demo (issue 30): the demo runs a real OpenID provider on loopback ("Demo SSO"). A newcomer
 * signs in through it and gets the role their group maps to; an administrator links an existing user to a
 * provider account with a one-time invitation, and that user then signs in by single sign-on; with two-factor on
 * and no MFA asserted by the provider, the console still asks for its code.
 */

const codeAt = (secret: string, ms: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: ms });

async function userIdOf(request: APIRequestContext, username: string): Promise<string> {
  const headers = { Authorization: await apiToken(request) };
  const res = await request.get(`/api/users?search=${encodeURIComponent(username)}`, { headers });
  const items = ((await res.json()) as { data: { items: { _id: string; username: string }[] } }).data.items;
  const user = items.find((u) => u.username === username);
  expect(user, `the user ${username}`).toBeTruthy();
  return user!._id;
}

/** The demo provider's own sign-in page, then back to the console's starting page. */
async function signInAtProvider(page: Page, username: string, password: string) {
  await expect(page.getByRole('heading', { name: 'Demo identity provider' })).toBeVisible();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Starting Page' })).toBeVisible();
}

test('a newcomer signs in with the demo provider and holds the role their group maps to', async ({ page, request }) => {
  await page.goto('/login');
  // The password form stays for everyone else.
  await expect(page.getByLabel('Username')).toBeVisible();
  await page.getByText('Sign in with Demo SSO').click();
  await signInAtProvider(page, 'dana', 'dana-demo');
  await expect(page.getByTestId('current-user')).toHaveText('Dana Devops');

  // The administrator sees the new user, with the role of the group "ops" and the linked account.
  const danaId = await userIdOf(request, 'dana');
  await page.goto('/logout');
  await page.getByRole('button', { name: 'Logout' }).click();
  await signIn(page);
  await page.goto(`/users/${danaId}`);
  await expect(page.getByRole('button', { name: 'Remove role Operators' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Linked accounts' })).toContainText('demo-dana');
});

test('an administrator links an existing user, who then signs in by single sign-on', async ({
  page,
  browser,
  request,
}) => {
  const operatorId = await userIdOf(request, 'operator');
  await signIn(page);
  await page.goto(`/users/${operatorId}`);
  await expect(page.getByText('No linked account.')).toBeVisible();
  await page.getByRole('button', { name: 'Create link invitation' }).click();
  const url = (await page.getByTestId('identity-link-url').textContent())!;
  expect(url).toMatch(/\/auth\/oidc\/start\?link=[0-9a-f]{64}$/);

  // Olga opens the address in her own browser and signs in at the provider as "olga": she is the operator.
  const other = await browser.newContext();
  try {
    const olga = await other.newPage();
    await olga.goto(url);
    await signInAtProvider(olga, 'olga', 'olga-demo');
    // The console user's name, not the provider's ("O. Orlova"): the link, not a new user.
    await expect(olga.getByTestId('current-user')).toHaveText('Olga Operator');
  } finally {
    await other.close();
  }

  await page.reload();
  await expect(page.getByRole('list', { name: 'Linked accounts' })).toContainText('demo-olga');
  await expect(page.getByText('A link invitation is pending')).toHaveCount(0);
  const headers = { Authorization: await apiToken(request) };
  const created = await request.get('/api/users?search=olga', { headers });
  const found = ((await created.json()) as { data: { items: { username: string }[] } }).data.items;
  expect(found.map((u) => u.username)).not.toContain('olga');
  // Unlinking asks first, then the account is gone from the page.
  await page.getByRole('button', { name: 'Unlink demo-olga' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Unlink' }).click();
  await expect(page.getByText('No linked account.')).toBeVisible();
});

test('single sign-on still asks for the console’s code when two-factor is on and the provider asserts no MFA', async ({
  page,
}) => {
  await page.goto('/login');
  await page.getByText('Sign in with Demo SSO').click();
  await signInAtProvider(page, 'dana', 'dana-demo');
  await page.getByTestId('current-user').click();
  await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  const secret = (await page.getByTestId('two-factor-secret').textContent())!.trim();
  await page.getByLabel('Code').fill(codeAt(secret, Date.now()));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByRole('button', { name: 'I have saved them' }).click();

  await page.goto('/logout');
  await page.getByRole('button', { name: 'Logout' }).click();
  // The provider remembers Dana: it sends her straight back, and the console asks for its own code.
  await page.getByText('Sign in with Demo SSO').click();
  await expect(page.getByLabel('Two-factor code')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('fleetdesk.token'))).toBeNull();
  await page.getByLabel('Two-factor code').fill(codeAt(secret, Date.now() + 30_000));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('heading', { name: 'Starting Page' })).toBeVisible();
  await expect(page.getByTestId('current-user')).toHaveText('Dana Devops');
});
