import type { APIRequestContext, Page } from '@playwright/test';
import {
  apiCreate,
  apiToken,
  DEMO_CLOUD,
  demoCloudDomain,
  dialog,
  expect,
  expectToast,
  signIn,
  tableRows,
  test,
  uniqueName,
} from './fixtures.ts';
import { apiCall as api } from './fixtures.ts';

/**
 * The cloud actions of a domain against the demo's Cloudflare simulator: a new domain of the demo cloud
 * ops@fleetdesk-demo.com gets its own zone, which every step then works on.
 */

async function setUp(request: APIRequestContext) {
  const token = await apiToken(request);
  const domain = await demoCloudDomain(request, token, 'e2e-cf', { zone: false });
  const { domainName } = domain;
  // Two WAF rules for the domain, saved the way Setup WAF saves them.
  const first = await apiCreate(request, token, 'firewall-rules', {
    name: uniqueName('E2E block bots'),
    action: 'block',
    expression: '(http.user_agent contains "e2e-bot")',
    defaultPriority: 20,
  });
  const second = await apiCreate(request, token, 'firewall-rules', {
    name: uniqueName('E2E challenge admin'),
    action: 'managed_challenge',
    expression: '(http.request.uri.path contains "/admin")',
    defaultPriority: 5,
  });
  await api(request, token, 'POST', `/api/domains/${domain._id}/firewall-rules`, {
    cloudFirewallRules: [
      { ruleId: first._id, priority: 20 },
      { ruleId: second._id, priority: 5 },
    ],
  });
  return { token, domainId: domain._id, domainName };
}

/** The header's Cloud Actions menu (spec 2), and one of its links. */
async function openCloudAction(page: Page, domainId: string, label: string) {
  await page.goto(`/domains/${domainId}?tab=cloud`);
  await page.getByRole('button', { name: 'Cloud Actions' }).click();
  const modal = page.getByRole('dialog', { name: 'Cloud Actions' });
  await modal.getByRole('link', { name: label, exact: true }).click();
  await expect(page.getByRole('heading', { name: label === 'Zone Info' ? 'Cloud Zone Info' : label })).toBeVisible();
}

/** The links of the Actions modal (spec 1), opened by the header's Cloud Actions (the Cloud tab has no second one). */
async function actionLinks(page: Page, domainId: string) {
  await page.goto(`/domains/${domainId}?tab=cloud`);
  await expect(page.getByRole('tabpanel').getByRole('button', { name: 'Actions', exact: true })).toHaveCount(0);
  await page.getByRole('button', { name: 'Cloud Actions' }).click();
  const modal = page.getByRole('dialog', { name: 'Cloud Actions' });
  await expect(modal).toBeVisible();
  const labels = await modal.getByRole('link').allTextContents();
  await modal.getByRole('button', { name: 'Close' }).click();
  await expect(modal).toBeHidden();
  return labels;
}

test('creates a zone, edits its DNS, settings, WAF and redirects, purges, relinks and deletes it', async ({
  page,
  request,
  consoleGuard,
}) => {
  test.setTimeout(240_000);
  consoleGuard.allow(/status of (400|502)/);
  const { token, domainId, domainName } = await setUp(request);
  await signIn(page);

  // Without a zone the Actions modal has no Zone Info, Unlink or Delete.
  const before = await actionLinks(page, domainId);
  expect(before).toContain('Create Zone');
  expect(before).not.toContain('Zone Info');
  expect(before).not.toContain('Unlink Zone');
  expect(before).not.toContain('Delete Zone');
  await expect(page.getByTestId('cloud-zone-info')).toHaveCount(0);

  // Create the zone: the name servers come back, ready to copy.
  await openCloudAction(page, domainId, 'Create Zone');
  await page.getByRole('button', { name: 'Create Zone' }).click();
  await expectToast(page, 'Zone created successfully');
  const result = page.getByTestId('create-zone-result');
  await expect(result).toContainText(`Zone ${domainName} created`);
  const nameServers = result.getByTestId('name-servers').locator('code');
  await expect(nameServers).toHaveCount(2);
  const servers = await nameServers.allTextContents();
  for (const ns of servers) expect(ns).toMatch(/^[a-z]+\.ns\.cloudflare\.com$/);
  await expect(result.getByRole('button', { name: 'Copy all' })).toBeVisible();
  const zoneId = (await result.locator('code').first().textContent())!;
  expect(zoneId).toMatch(/^[0-9a-f]{32}$/);

  // The Cloud tab shows the zone info and the zone id; the modal now offers the zone's actions.
  await result.getByRole('link', { name: 'Back to domain' }).click();
  await expect(page).toHaveURL(new RegExp(`/domains/${domainId}\\?tab=cloud$`));
  const info = page.getByTestId('cloud-zone-info');
  await expect(info).toContainText(domainName);
  await expect(info.getByTestId('cloud-zone-name-servers').locator('li')).toHaveText(servers);
  await expect(page.getByRole('tabpanel').getByText(zoneId)).toBeVisible();
  const after = await actionLinks(page, domainId);
  expect(after).toEqual(expect.arrayContaining(['Zone Info', 'Unlink Zone', 'Delete Zone']));
  await openCloudAction(page, domainId, 'Zone Info');
  await expect(page.getByTestId('zone-info')).toContainText(domainName);
  await expect(page.getByTestId('zone-info')).toContainText('pending');

  // DNS: add two records; the summary comes first, and only Confirm applies it.
  await openCloudAction(page, domainId, 'Update DNS');
  await expect(page.getByText('No DNS records')).toBeVisible();
  const rows = page.getByTestId('dns-row');
  await page.getByRole('button', { name: 'Add Record' }).click();
  await expect(rows.last().getByLabel('Type')).toHaveValue('A');
  await expect(rows.last().getByLabel('Proxied')).toHaveValue('1');
  await expect(rows.last().getByLabel('TTL')).toHaveValue('1');
  await rows.last().getByLabel('Name').fill('@');
  await rows.last().getByLabel('Content').fill('203.0.113.50');
  await page.getByRole('button', { name: 'Add Record' }).click();
  await rows.last().getByLabel('Type').selectOption('CNAME');
  await rows.last().getByLabel('Name').fill('www');
  // Required fields are checked before anything is sent.
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(dialog(page)).toContainText('Some records are incomplete');
  await dialog(page).getByRole('button', { name: 'OK' }).click();
  await expect(rows.last()).toContainText('Content is required');
  await rows.last().getByLabel('Content').fill(domainName);
  await page.getByRole('button', { name: 'Save' }).click();
  const summary = page.getByTestId('dns-summary');
  await expect(summary).toContainText('2 added, 0 changed, 0 deleted');
  await expect(summary.getByTestId('dns-summary-added').locator('li')).toHaveText([
    'A @ → 203.0.113.50',
    `CNAME www → ${domainName}`,
  ]);
  // Cancel leaves Cloudflare alone.
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();
  let records = await api<{ result: unknown[] }>(
    request,
    token,
    'GET',
    `/api/domains/${domainId}/cloud-flare/dns_records`,
  );
  expect(records.result).toHaveLength(0);
  await page.getByRole('button', { name: 'Save' }).click();
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'DNS records saved: 2 added, 0 changed, 0 deleted');
  await expect(rows).toHaveCount(2);
  await expect(rows.first().getByLabel('Name')).toHaveValue(domainName);

  // Change the A record, delete the CNAME (Cloudflare lists them by type).
  const aRow = rows.nth(0);
  const cnameRow = rows.nth(1);
  await expect(aRow.getByLabel('Type')).toHaveValue('A');
  await expect(cnameRow.getByLabel('Type')).toHaveValue('CNAME');
  await aRow.getByLabel('Content').fill('203.0.113.51');
  await aRow.getByLabel('Proxied').selectOption('0');
  await aRow.getByLabel('TTL').fill('300');
  await cnameRow.getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(summary).toContainText('0 added, 1 changed, 1 deleted');
  await expect(summary.getByTestId('dns-summary-changed')).toContainText(
    'content 203.0.113.50 → 203.0.113.51; proxied Proxied → DNS only; TTL Auto → 300',
  );
  await expect(summary.getByTestId('dns-summary-deleted')).toContainText(`CNAME www.${domainName}`);
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'DNS records saved: 0 added, 1 changed, 1 deleted');
  records = await api<{ result: unknown[] }>(request, token, 'GET', `/api/domains/${domainId}/cloud-flare/dns_records`);
  expect(records.result).toEqual([
    expect.objectContaining({ type: 'A', name: domainName, content: '203.0.113.51', proxied: false, ttl: 300 }),
  ]);

  // A change Cloudflare refuses shows its message in the Error dialog, and nothing is applied.
  await page.getByRole('button', { name: 'Add Record' }).click();
  await rows.last().getByLabel('Name').fill(domainName);
  await rows.last().getByLabel('Content').fill('203.0.113.51');
  await rows.last().getByLabel('Proxied').selectOption('0');
  await page.getByRole('button', { name: 'Save' }).click();
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  const error = page.getByRole('dialog', { name: 'Error' });
  await expect(error).toContainText('Cloudflare: 81057 Record already exists.');
  await error.getByRole('button', { name: 'OK' }).click();
  await rows.last().getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByTestId('dns-pending')).toHaveCount(0);

  // SSL to Full strict, TLS 1.3 on; both read back from Cloudflare.
  await openCloudAction(page, domainId, 'Update SSL Settings');
  await expect(page.getByRole('radio', { name: /^Off/ })).toBeChecked();
  await page.getByRole('radio', { name: /^Full strict/ }).check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'SSL settings saved successfully');
  await page.reload();
  await expect(page.getByRole('radio', { name: /^Full strict/ })).toBeChecked();
  await expect(page.getByTestId('setting-current')).toContainText('Full strict');

  await openCloudAction(page, domainId, 'Update TLS 1.3 Settings');
  await expect(page.getByRole('radio', { name: 'Off', exact: true })).toBeChecked();
  await page.getByRole('radio', { name: 'On', exact: true }).check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'TLS 1.3 settings saved successfully');
  await page.reload();
  await expect(page.getByRole('radio', { name: 'On', exact: true })).toBeChecked();

  // WAF: the rules to push, in priority order, then the push and its report.
  await openCloudAction(page, domainId, 'Update Firewall Rules');
  const wafRows = tableRows(page.getByTestId('firewall-rules-to-push'));
  await expect(wafRows).toHaveCount(2);
  await expect(wafRows.nth(0)).toContainText('E2E challenge admin');
  await expect(wafRows.nth(1)).toContainText('E2E block bots');
  await page.getByRole('button', { name: 'Push to Cloudflare' }).click();
  await expectToast(page, 'Firewall rules updated successfully');
  await expect(page.getByTestId('firewall-rules-result')).toContainText('Pushed 2 firewall rules to Cloudflare');
  const pushed = await api<{ cloudRulesetId: string | null }>(request, token, 'GET', `/api/domains/${domainId}`);
  expect(pushed.cloudRulesetId).toMatch(/^[0-9a-f]{32}$/);

  // A redirect rule with a static target.
  await openCloudAction(page, domainId, 'Update Redirect Rules');
  await expect(page.getByText('No redirect rules.')).toBeVisible();
  await page.getByRole('button', { name: 'Add Rule' }).click();
  const rule = page.getByTestId('redirect-rule');
  await expect(rule.getByLabel('Status code')).toHaveValue('301');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(rule).toContainText('Rule expression is required');
  await rule.getByLabel('When incoming requests match (expression)').fill('(http.request.uri.path eq "/old")');
  await rule.getByLabel('Target URL').fill(`https://${domainName}/new`);
  await rule.getByLabel('Status code').selectOption('308');
  await rule.getByLabel('Preserve query string').check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'Redirect rules saved successfully');
  await page.reload();
  await expect(rule).toHaveCount(1);
  await expect(rule.getByLabel('Target URL')).toHaveValue(`https://${domainName}/new`);
  await expect(rule.getByLabel('Status code')).toHaveValue('308');
  await expect(rule.getByLabel('Preserve query string')).toBeChecked();

  // Purge: a confirm, then a toast.
  await openCloudAction(page, domainId, 'Purge Cache');
  await expect(dialog(page)).toContainText(`purge the whole Cloudflare cache of ${domainName}`);
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'Cache purged successfully');
  await expect(page).toHaveURL(new RegExp(`/domains/${domainId}\\?tab=cloud$`));

  // Unlink (Cancel first: nothing happens), then link again, after a link that fails its check.
  await openCloudAction(page, domainId, 'Unlink Zone');
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(new RegExp(`/domains/${domainId}\\?tab=cloud$`));
  await expect(page.getByTestId('cloud-zone-info')).toBeVisible();
  await openCloudAction(page, domainId, 'Unlink Zone');
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'Zone unlinked successfully');
  await expect(page.getByTestId('cloud-zone-info')).toHaveCount(0);
  expect(await actionLinks(page, domainId)).not.toContain('Zone Info');

  await openCloudAction(page, domainId, 'Link Zone');
  await page.getByRole('button', { name: 'Link Zone' }).click();
  await expect(page.getByText('Cloud zone id is required')).toBeVisible();
  await page.getByLabel('Cloud Zone Id').fill('f'.repeat(32));
  await page.getByRole('button', { name: 'Link Zone' }).click();
  await expect(
    page.getByText(`Zone ${'f'.repeat(32)} was not found in the Cloudflare account of cloud ${DEMO_CLOUD}`),
  ).toBeVisible();
  // The picker lists the account's zones: a demo zone another domain links is marked with it, and not offered.
  const picker = page.getByTestId('zone-picker');
  await picker.getByRole('searchbox').fill('fleetdesk-demo.com');
  await picker.getByRole('searchbox').press('Enter');
  const taken = picker.getByTestId('zone-row').filter({ hasText: 'fleetdesk-demo.com' }).first();
  await expect(taken.getByTestId('zone-linked')).toContainText('fleetdesk-demo.com');
  await expect(taken.getByRole('button', { name: 'Pick' })).toHaveCount(0);
  // The domain's own zone, found by name, fills the id (pasting one still works, as above).
  await picker.getByRole('searchbox').fill(domainName);
  await picker.getByRole('searchbox').press('Enter');
  const own = picker.getByTestId('zone-row');
  await expect(own).toHaveCount(1);
  await expect(own).toContainText(zoneId);
  await expect(own.getByTestId('zone-linked')).toHaveCount(0);
  await own.getByRole('button', { name: 'Pick' }).click();
  await expect(page.getByLabel('Cloud Zone Id')).toHaveValue(zoneId);
  await page.getByRole('button', { name: 'Link Zone' }).click();
  await expectToast(page, 'Zone linked successfully');
  await expect(page.getByTestId('cloud-zone-info')).toContainText(domainName);

  // Delete it: gone at Cloudflare and from the domain.
  await openCloudAction(page, domainId, 'Delete Zone');
  await expect(dialog(page)).toContainText(`Are you sure you want to delete the Cloudflare zone of ${domainName}?`);
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'Zone deleted successfully');
  await expect(page.getByTestId('cloud-zone-info')).toHaveCount(0);
  const gone = await api<{ cloudZoneId: string | null }>(request, token, 'GET', `/api/domains/${domainId}`);
  expect(gone.cloudZoneId).toBeNull();

  // Creating it again works: the name is free at Cloudflare again.
  await openCloudAction(page, domainId, 'Create Zone');
  await page.getByRole('button', { name: 'Create Zone' }).click();
  await expectToast(page, 'Zone created successfully');
});

test('says what a cloud action needs when the domain has no cloud or no zone', async ({ page, request }) => {
  const token = await apiToken(request);
  const bare = await apiCreate(request, token, 'domains', {
    domainName: `${uniqueName('e2e-bare').replace(/\s+/g, '-').toLowerCase()}.org`,
    status: 'active',
  });
  await signIn(page);
  await page.goto(`/domains/${bare._id}/cloud-flare/create-zone`);
  await expect(page.getByTestId('cloud-flare-refusal')).toContainText(
    'This domain has no cloud; pick one on the Cloud tab',
  );
  const { domainId } = await setUp(request);
  await page.goto(`/domains/${domainId}/cloud-flare/update-dns`);
  await expect(page.getByTestId('cloud-flare-refusal')).toContainText(
    'This domain has no Cloudflare zone; create or link one first',
  );
  await page.getByTestId('cloud-flare-refusal').getByRole('link', { name: 'Link Zone' }).click();
  await expect(page.getByRole('heading', { name: 'Link Zone' })).toBeVisible();
});
