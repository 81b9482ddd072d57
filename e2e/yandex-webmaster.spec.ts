import {
  apiToken,
  demoCloudDomain,
  dialog,
  expect,
  expectToast,
  signIn,
  tableRows,
  test,
  uniqueName,
} from './fixtures.ts';

/**
 * Yandex Webmaster against the demo's simulator: an account with the demo's free token, a host for a new domain
 * of the demo cloud (its own Cloudflare zone), verification through DNS, every host tab, a user sitemap and a recrawl.
 */

const FREE_TOKEN = 'demo-yandex-token-2';

test('account, host, DNS verification, every tab, sitemap and recrawl', async ({ page, request }) => {
  test.setTimeout(300_000);
  const token = await apiToken(request);
  const { _id: domainId, domainName } = await demoCloudDomain(request, token, 'e2e-ya');

  await signIn(page);
  // Create an account through the screen.
  const accountName = uniqueName('E2E Yandex');
  await page.goto('/yandex-webmaster');
  await expect(page.getByRole('heading', { name: 'Yandex Webmaster Accounts' })).toBeVisible();
  await page.getByRole('link', { name: 'Create Account' }).click();
  await expect(page).toHaveURL(/\/yandex-webmaster\/create-account$/);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Name is required')).toBeVisible();
  await page.getByLabel('Name').fill(accountName);
  await page.getByRole('textbox', { name: 'Api Token', exact: true }).fill(FREE_TOKEN);
  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Yandex Webmaster Account created successfully');
  await expect(page).toHaveURL(/\/yandex-webmaster\/accounts\/[0-9a-f-]+$/);
  const accountId = page.url().split('/').pop()!;
  // The token is locked until Change Api Token is ticked.
  await expect(page.getByRole('textbox', { name: 'Api Token', exact: true })).toBeDisabled();
  await page.getByLabel('Change Api Token').check();
  await expect(page.getByRole('textbox', { name: 'Api Token', exact: true })).toBeEnabled();
  // Ticked, the form has a change: leaving would ask first (the unsaved-changes guard), so it is unticked again.
  await page.getByLabel('Change Api Token').uncheck();

  // The Account actions menu.
  await page.getByRole('button', { name: 'Account Actions' }).click();
  await expect(page.locator('.dropdown-menu.show').getByRole('link')).toHaveText([
    'Hosts',
    'Create Host',
    'Delete Account',
  ]);
  await page.locator('.dropdown-menu.show').getByRole('link', { name: 'Create Host' }).click();

  // Add the host for the demo domain.
  await expect(page).toHaveURL(new RegExp(`/yandex-webmaster/accounts/${accountId}/create-host$`));
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Host url is required')).toBeVisible();
  await page.getByLabel('Host Url').fill(`https://${domainName}`);
  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Host created successfully');
  await expect(page.getByRole('tab', { name: 'Verification', selected: true })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Summary' })).toBeDisabled();
  // The state reads as a word, the API's code on hover.
  await expect(page.getByTestId('verification-state')).toHaveText('Not verified');
  await expect(page.getByTestId('verification-state')).toHaveAttribute('title', 'NONE');
  await expect(page.getByRole('button', { name: 'Verify Host with DNS record' })).toBeVisible();
  // What to publish for each method, built from the host's uin, each with a copy button.
  const uin = (await page
    .locator('code')
    .filter({ hasText: /^[0-9a-f]{16}$/ })
    .first()
    .textContent())!;
  expect(uin).toMatch(/^[0-9a-f]{16}$/);
  await expect(page.getByTestId('verify-dns-name')).toHaveText(domainName);
  await expect(page.getByTestId('verify-dns-value')).toHaveText(`yandex-verification: ${uin}`);
  await expect(page.getByTestId('verify-meta-tag')).toHaveText(`<meta name="yandex-verification" content="${uin}" />`);
  await expect(page.getByTestId('verify-file-name')).toHaveText(`yandex_${uin}.html`);
  await expect(page.getByTestId('verify-file-content')).toContainText(`<body>Verification: ${uin}</body>`);
  await expect(page.getByTestId('verify-method-DNS').getByRole('button', { name: 'Copy the TXT value' })).toBeVisible();

  // Verify it through DNS from the domain's Yandex Webmaster tab.
  await page.goto(`/domains/${domainId}?tab=yandex-webmaster`);
  await page.getByTestId('field-yandexWebmasterAccountId').getByRole('button', { name: 'Select' }).click();
  const picker = page.getByRole('dialog', { name: 'Select a yandex webmaster account' });
  await picker.getByRole('searchbox', { name: 'Search' }).fill(accountName);
  await expect(tableRows(picker)).toHaveCount(1);
  await tableRows(picker).first().click();
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'Domain saved successfully');
  await expect(page.getByTestId('domain-webmaster-host')).toContainText('Not verified');
  await page.getByRole('button', { name: 'Verify through DNS' }).click();
  await expect(page.getByTestId('one-click-state')).toHaveText('Verified', { timeout: 30_000 });
  await expect(page.getByTestId('verification-success')).toHaveText('The host is verified on Yandex Webmaster.');

  // Every tab of the verified host.
  const hostId = `https:${domainName}:443`;
  const hostPath = `/yandex-webmaster/accounts/${accountId}/hosts/${encodeURIComponent(hostId)}`;
  await page.goto(`${hostPath}?tab=verification`);
  await expect(page.getByTestId('verification-state')).toHaveText('Verified');
  await expect(page.getByRole('button', { name: /Verify Host/ })).toHaveCount(0);
  await expect(page.getByTestId('verification-instructions')).toHaveCount(0);
  await page.getByRole('tab', { name: 'General' }).click();
  await expect(page.getByRole('tabpanel')).toContainText(hostId);
  await page.getByRole('tab', { name: 'Summary' }).click();
  await expect(page.getByText('SQI')).toBeVisible();
  await page.getByRole('tab', { name: 'Important URLs' }).click();
  await expect(page.getByRole('tabpanel')).toContainText(`https://${domainName}/`);
  await page.getByRole('tab', { name: 'Sitemaps', exact: true }).click();
  await expect(page.getByRole('tabpanel')).toContainText('sitemap.xml');

  // Add and delete a user sitemap.
  await page.getByRole('tab', { name: 'User Added Sitemaps' }).click();
  const sitemapUrl = `https://${domainName}/e2e-sitemap.xml`;
  await page.getByLabel('Sitemap URL').fill(sitemapUrl);
  await page.getByRole('button', { name: 'Add Sitemap' }).click();
  await expectToast(page, 'Sitemap added successfully');
  const row = page.getByRole('row', { name: new RegExp(sitemapUrl.replace(/[.]/g, '\\.')) });
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'Delete' }).click();
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'Sitemap deleted successfully');
  await expect(row).toHaveCount(0);

  // Queue a recrawl and see the quota fall.
  await page.getByRole('tab', { name: 'Recrawl' }).click();
  const quota = page.getByTestId('recrawl-quota');
  await expect(quota).toContainText('Quota Remainder');
  const before = Number((await quota.locator('text=/^\\d+$/').last().textContent()) ?? 'NaN');
  await page.getByLabel('URL to recrawl').fill(`https://${domainName}/page-1`);
  await page.getByRole('button', { name: 'Recrawl' }).click();
  await expectToast(page, 'URL sent for recrawl');
  await expect(quota.locator('text=/^\\d+$/').last()).toHaveText(String(before - 1));
  await expect(page.getByRole('tabpanel')).toContainText(`https://${domainName}/page-1`);
});
