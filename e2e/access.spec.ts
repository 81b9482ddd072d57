import { Secret, TOTP } from 'otpauth';
import type { APIRequestContext, Page } from '@playwright/test';
import { ADMIN, apiCreate, apiToken, dialog, expect, signIn, test } from './fixtures.ts';

/**
 * Access as a company expects it (issue 30): two-factor sign-in with a code, a personal API token used by a
 * script, and a session ended from the sessions screen signing the other browser out.
 */

const PASSWORD = 'a long e2e password';
const codeAt = (secret: string, ms: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: ms });

/** A new user holding the Brands rule, so the admin's own sign-in stays as the other specs expect it. */
async function newUser(request: APIRequestContext) {
  const admin = await apiToken(request, ADMIN);
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
  const role = await apiCreate(request, admin, 'roles', { name: `e2e access ${suffix}`, rules: ['cnv:brands'] });
  const username = `access-${suffix}`;
  await apiCreate(request, admin, 'users', {
    username,
    name: `Access ${suffix}`,
    email: `${username}@example.test`,
    password: PASSWORD,
    status: 'active',
    roles: [role._id],
  });
  return { username, password: PASSWORD };
}

async function signOut(page: Page) {
  await page.goto('/logout');
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

test('turns TOTP on, signs out, and signs in again with a code', async ({ page, request }) => {
  const user = await newUser(request);
  await signIn(page, user);
  await page.getByTestId('current-user').click();
  await expect(page.getByRole('heading', { name: 'Profile' })).toBeVisible();
  await expect(page.getByText('Two-factor sign-in is off.')).toBeVisible();
  await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  await expect(page.getByRole('img', { name: 'QR code of the two-factor secret' })).toBeVisible();
  const secret = (await page.getByTestId('two-factor-secret').textContent())!.trim();
  await page.getByLabel('Code').fill(codeAt(secret, Date.now()));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await expect(page.getByRole('heading', { name: 'Your recovery codes' })).toBeVisible();
  await expect(page.getByTestId('recovery-codes').locator('li')).toHaveCount(10);
  await page.getByRole('button', { name: 'I have saved them' }).click();
  await expect(page.getByTestId('recovery-codes-left')).toHaveText('10');

  await signOut(page);
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Login' }).click();
  // No token yet: the code step.
  await expect(page.getByLabel('Two-factor code')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('fleetdesk.token'))).toBeNull();
  // The step after the one that turned it on: a code is never accepted twice.
  await page.getByLabel('Two-factor code').fill(codeAt(secret, Date.now() + 30_000));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('heading', { name: 'Starting Page' })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('fleetdesk.token'))).toMatch(/^Bearer [0-9a-f]{64}$/);
});

test('creates an API token on the profile and calls the API with it', async ({ page, request }) => {
  const user = await newUser(request);
  await signIn(page, user);
  await page.goto('/profile?tab=tokens');
  await page.getByLabel('Name').fill('e2e script');
  await page.getByLabel('Brands').check();
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = (await page.getByTestId('new-api-token').textContent())!.trim();
  expect(token).toMatch(/^fdt_[0-9a-f]{64}$/);
  await expect(page.getByText(`curl -H "Authorization: Bearer ${token}"`)).toBeVisible();
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('new-api-token')).toHaveCount(0);

  // As a script would.
  const brands = await request.get('/api/brands', { headers: { Authorization: `Bearer ${token}` } });
  expect(brands.status()).toBe(200);
  const servers = await request.get('/api/servers', { headers: { Authorization: `Bearer ${token}` } });
  expect(servers.status()).toBe(403);
  const more = await request.post('/auth/tokens', {
    headers: { Authorization: `Bearer ${token}` },
    data: { name: 'x', rules: ['cnv:brands'], expiresInDays: 1 },
  });
  expect(more.status()).toBe(403);

  await page.reload();
  const row = page.locator('table tbody tr').filter({ hasText: 'e2e script' });
  await expect(row).toContainText('127.0.0.1');
  await row.getByRole('button', { name: 'Revoke' }).click();
  await dialog(page).getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toHaveCount(0);
  expect((await request.get('/api/brands', { headers: { Authorization: `Bearer ${token}` } })).status()).toBe(401);
});

test('ends a session from the sessions screen and the other browser is signed out', async ({
  page,
  browser,
  request,
}) => {
  const user = await newUser(request);
  const other = await browser.newContext();
  try {
    const otherPage = await other.newPage();
    await signIn(otherPage, user);
    await signIn(page, user);
    await page.goto('/profile?tab=sessions');
    const rows = page.locator('table tbody tr');
    await expect(rows).toHaveCount(2);
    await expect(rows.filter({ hasText: 'This session' })).toHaveCount(1);
    await rows.filter({ hasNotText: 'This session' }).getByRole('button', { name: 'End' }).click();
    await dialog(page).getByRole('button', { name: 'End session' }).click();
    await expect(rows).toHaveCount(1);

    // Its next request is refused: the console sends it to the sign-in page.
    await otherPage.goto('/brands');
    await expect(otherPage).toHaveURL(/\/login$/);
    expect(await otherPage.evaluate(() => localStorage.getItem('fleetdesk.token'))).toBeNull();
    // This browser goes on.
    await page.goto('/brands');
    await expect(page.getByRole('heading', { name: 'Brands' })).toBeVisible();
  } finally {
    await other.close();
  }
});

test('an administrator sees and ends anyone’s session', async ({ page, browser, request }) => {
  const user = await newUser(request);
  const other = await browser.newContext();
  try {
    const otherPage = await other.newPage();
    await signIn(otherPage, user);
    await signIn(page, ADMIN);
    await page.goto('/sessions');
    await page.getByPlaceholder(/search/i).fill(user.username);
    const row = page.locator('table tbody tr').filter({ hasText: user.username });
    await expect(row).toHaveCount(1);
    await row.getByRole('button', { name: 'End' }).click();
    await dialog(page).getByRole('button', { name: 'End session' }).click();
    await expect(page.getByText(`No sessions match "${user.username}"`)).toBeVisible();
    await otherPage.goto('/brands');
    await expect(otherPage).toHaveURL(/\/login$/);
  } finally {
    await other.close();
  }
});
