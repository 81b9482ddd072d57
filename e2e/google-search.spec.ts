import fs from 'node:fs';
import path from 'node:path';
import {
  apiCall as api,
  apiToken,
  demoCloudDomain,
  expect,
  expectToast,
  signIn,
  test,
  uniqueName,
} from './fixtures.ts';

/**
 * Google Search Console against the demo's simulator: an account made with the demo's free service-account key
 * (the demo keeps its keys in DATA_DIR), a domain property for a new domain of the demo cloud verified through a
 * TXT record in its zone, and its 28-day chart; the seeded account's property with its sitemap.
 */

function demoKeys(): { client_email: string }[] {
  const dir = process.env.FLEETDESK_E2E_DATA_DIR;
  if (!dir) throw new Error('FLEETDESK_E2E_DATA_DIR is not set (playwright.config.ts sets it)');
  return JSON.parse(fs.readFileSync(path.join(dir, 'demo-google-keys.json'), 'utf8')) as { client_email: string }[];
}

test('adds a Google account, verifies a domain property through DNS and sees its chart', async ({
  page,
  request,
  consoleGuard,
}) => {
  test.setTimeout(180_000);
  // The refused key and the refused sitemap are 400s the browser logs.
  consoleGuard.allow(
    /status of 400 \(Bad Request\) \(http:\/\/[^)]+\/api\/(google-search\/accounts|domains\/[^/]+\/google-search\/sitemaps)\)/,
  );
  const token = await apiToken(request);
  const { _id: domainId, domainName } = await demoCloudDomain(request, token, 'e2e-g');

  await signIn(page);
  await page.goto('/google-search');
  await expect(page.getByRole('heading', { name: 'Google Search Console Accounts' })).toBeVisible();
  await page.getByRole('link', { name: 'Create Account' }).click();
  await expect(page).toHaveURL(/\/google-search\/create-account$/);
  const name = uniqueName('E2E Google');
  await page.getByLabel('Name').fill(name);
  const keyField = page.getByLabel('Service account key (JSON)');
  // A key that is not a service account's: the field says so.
  await keyField.fill('{"type":"authorized_user"}');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('The key must be of type "service_account"')).toBeVisible();
  const key = demoKeys()[1]!;
  await keyField.fill(JSON.stringify(key));
  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Google Account created successfully');
  await expect(page).toHaveURL(/\/google-search\/accounts\/[0-9a-f-]+$/);
  await expect(page.getByText(key.client_email)).toBeVisible();
  // The key is never shown again: the field is locked and empty of it.
  await expect(keyField).toBeDisabled();
  await expect(keyField).not.toHaveValue(/PRIVATE KEY/);

  // The domain's Google tab: add the domain property with the new account, then verify it in one click.
  await page.goto(`/domains/${domainId}?tab=google-search`);
  const tab = page.getByRole('tabpanel');
  await tab.getByLabel('Google account').selectOption({ label: `${name} (${key.client_email})` });
  await expect(tab.getByLabel(/Domain property/)).toBeChecked();
  await tab.getByRole('button', { name: 'Add property' }).click();
  await expect(page.getByTestId('google-site-url')).toHaveText(`sc-domain:${domainName}`);
  await expect(page.getByTestId('google-verified')).toHaveText('Not verified');
  await tab.getByRole('button', { name: 'Verify through a DNS TXT record' }).click();
  await expect(page.getByTestId('google-verify-success')).toContainText('google-site-verification=');
  await expect(page.getByTestId('google-verified')).toHaveText('Verified');

  // Its search performance: four charts of the last 28 days, and the top queries and pages.
  for (const chart of ['clicks', 'impressions', 'ctr', 'position'])
    await expect(page.getByTestId(`google-chart-${chart}`).locator('canvas')).toBeVisible();
  await expect(page.getByTestId('google-top-queries').locator('tbody tr').first()).toBeVisible();
  await expect(page.getByTestId('google-top-pages').locator('tbody tr').first()).toContainText(
    `https://${domainName}/`,
  );

  // A sitemap outside the property is refused beside its field.
  const sitemapUrl = page.getByTestId('google-sitemap-form').getByRole('textbox');
  await sitemapUrl.fill('https://elsewhere.example/sitemap.xml');
  await page.getByTestId('google-sitemap-form').getByRole('button', { name: 'Submit' }).click();
  await expect(page.getByTestId('google-sitemap-form')).toContainText(
    `https://elsewhere.example/sitemap.xml is not within the property sc-domain:${domainName}`,
  );

  // URL inspection of the home page.
  await page.getByTestId('google-inspect-form').getByRole('textbox').fill(`https://${domainName}/`);
  await page.getByTestId('google-inspect-form').getByRole('button', { name: 'Inspect' }).click();
  await expect(page.getByTestId('google-inspection')).toContainText('PASS');
  await expect(page.getByTestId('google-inspection')).toContainText('Mobile usability');

  // The account's page lists its properties as Google does.
  await page.getByRole('link', { name: `${name} (${key.client_email})` }).click();
  await expect(
    page.getByTestId('google-account-sites').getByRole('row', { name: `sc-domain:${domainName}` }),
  ).toContainText('Owner');
});

test("the seeded account's property has its sitemap and analytics", async ({ page, request }) => {
  const token = await apiToken(request);
  const found = await api<{ items: { _id: string; domainName: string }[] }>(
    request,
    token,
    'GET',
    '/api/domains?search=fleetdesk-demo.com',
  );
  const d = found.items.find((x) => x.domainName === 'fleetdesk-demo.com')!;
  await signIn(page);
  await page.goto(`/domains/${d._id}?tab=google-search`);
  await expect(page.getByTestId('google-site-url')).toHaveText('sc-domain:fleetdesk-demo.com');
  await expect(page.getByTestId('google-verified')).toHaveText('Verified');
  const sitemaps = page.getByTestId('google-sitemaps');
  await expect(sitemaps.getByRole('row', { name: /fleetdesk-demo\.com\/sitemap\.xml/ })).toContainText('Success');
  await expect(page.getByTestId('google-chart-clicks').locator('canvas')).toBeVisible();
});
