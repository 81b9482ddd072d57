import fs from 'node:fs';
import type { APIRequestContext, Page } from '@playwright/test';
import {
  apiCreate,
  apiDelete,
  apiToken,
  dialog,
  expect,
  expectToast,
  signIn,
  tableRows,
  test,
  uniqueName,
} from './fixtures.ts';

const idFrom = (url: string) => /\/domains\/([0-9a-f-]{36})(?:\/|\?|$)/.exec(url)?.[1] ?? '';

/** A small RFC 4180 reader for the downloaded export. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  return rows;
}

/** Opens a field's picker on the current tab, searches, and picks the only row. */
async function pick(page: Page, field: string, title: string, search: string) {
  await page.getByTestId(`field-${field}`).getByRole('button', { name: 'Select' }).click();
  const picker = page.getByRole('dialog', { name: title });
  await picker.getByRole('searchbox', { name: 'Search' }).fill(search);
  await expect(tableRows(picker)).toHaveCount(1);
  await tableRows(picker).first().click();
  await expect(picker).toBeHidden();
}

async function setUp(request: APIRequestContext) {
  const token = await apiToken(request);
  const tag = uniqueName('e2e').replace(/\s+/g, '-').toLowerCase();
  const brand = await apiCreate(request, token, 'brands', { name: `Brand ${tag}` });
  const usedCloud = await apiCreate(request, token, 'clouds', { email: `${tag}-used@example.com` });
  const freeCloud = await apiCreate(request, token, 'clouds', { email: `${tag}-free@example.com` });
  const server = await apiCreate(request, token, 'servers', {
    IPAddress: '198.51.100.77',
    email: `${tag}@example.com`,
    domainsLimitQty: 10,
  });
  const registrator = await apiCreate(request, token, 'domain-registrators', {
    name: `Registrar ${tag}`,
    type: 'namecheap',
    credentials: { endpointUrl: 'http://127.0.0.1:9/xml.response', apiUsername: 'e2e', apiKey: 'k' },
  });
  const rules = [
    await apiCreate(request, token, 'firewall-rules', {
      name: `Block ${tag}`,
      action: 'block',
      expression: '(ip.src eq 192.0.2.1)',
      defaultPriority: 7,
    }),
    await apiCreate(request, token, 'firewall-rules', {
      name: `Challenge ${tag}`,
      action: 'managed_challenge',
      expression: '(cf.threat_score gt 10)',
      defaultPriority: 30,
    }),
  ];
  // Another domain of the brand already uses one cloud: the cloud picker marks it In Use.
  const sibling = await apiCreate(request, token, 'domains', {
    domainName: `sibling-${tag}.test`,
    status: 'active',
    brandId: brand._id,
    cloudId: usedCloud._id,
  });
  return { token, tag, brand, usedCloud, freeCloud, server, registrator, rules, sibling };
}

test('domains: create with every link, tabs by URL, Setup WAF, search and export, delete', async ({
  page,
  request,
  consoleGuard,
}) => {
  test.setTimeout(120_000);
  // The Domain Registrator tab asks the registrator, whose endpoint here is a closed loopback port: a 502.
  consoleGuard.allow(/status of 502/);
  const s = await setUp(request);
  const unicodeName = `bücher-${s.tag}.test`;
  const asciiName = new URL(`http://${unicodeName}`).hostname;
  await signIn(page);

  // The list: its columns, and the Create Domain link.
  await page.goto('/domains');
  await expect(page.getByRole('heading', { name: 'Domains' })).toBeVisible();
  // The checkbox column (fleet selection, issue 17) leads; its header is the page's checkbox.
  await expect(page.getByRole('columnheader')).toHaveText([
    '',
    '#',
    '№',
    'Domain Name',
    'Redirect Domain',
    'Expiration Date',
    'Restricted',
    'Status',
    'Health',
  ]);
  await page.getByRole('link', { name: 'Create Domain' }).click();
  await expect(page.getByRole('heading', { name: 'Create Domain' })).toBeVisible();

  // General: name (in Unicode), server (with its fill), brand, redirect, restricted.
  await page.getByLabel('Domain Name').fill(unicodeName);
  await page.getByTestId('field-serverId').getByRole('button', { name: 'Select' }).click();
  const serverPicker = page.getByRole('dialog', { name: 'Select a server' });
  await serverPicker.getByRole('searchbox', { name: 'Search' }).fill(`${s.tag}@example.com`);
  await expect(tableRows(serverPicker)).toHaveCount(1);
  await expect(tableRows(serverPicker).first()).toContainText(`${s.tag}@example.com / 198.51.100.77`);
  await expect(tableRows(serverPicker).first()).toContainText('0 / 10');
  await tableRows(serverPicker).first().click();
  await expect(page.getByTestId('field-serverId').getByRole('textbox')).toHaveValue(
    `${s.tag}@example.com / 198.51.100.77`,
  );
  await pick(page, 'brandId', 'Select a brand', `Brand ${s.tag}`);
  await page.getByLabel('Redirect Domain').fill(`www.${s.tag}.test`);
  await page.getByLabel('Restricted').check();

  // Cloud: the cloud the brand's other domain uses is marked In Use; picking it is allowed, with a warning.
  await page.getByRole('tab', { name: 'Cloud' }).click();
  await expect(page).toHaveURL(/\?tab=cloud$/);
  await page.getByTestId('field-cloudId').getByRole('button', { name: 'Select' }).click();
  const cloudPicker = page.getByRole('dialog', { name: 'Select a cloud' });
  await cloudPicker.getByRole('searchbox', { name: 'Search' }).fill(s.tag);
  await expect(tableRows(cloudPicker)).toHaveCount(2);
  await expect(cloudPicker.getByRole('columnheader', { name: 'In Use' })).toBeVisible();
  const usedRow = tableRows(cloudPicker).filter({ hasText: `${s.tag}-used@example.com` });
  const freeRow = tableRows(cloudPicker).filter({ hasText: `${s.tag}-free@example.com` });
  await expect(usedRow.getByTestId('in-use-icon')).toBeVisible();
  await expect(freeRow.getByTestId('in-use-icon')).toHaveCount(0);
  await usedRow.click();
  await expect(cloudPicker).toBeHidden();
  await expect(page.getByText('Another domain of this brand already uses this cloud.')).toBeVisible();

  // Domain Registrator: the registrator and the expiration date.
  await page.getByRole('tab', { name: 'Domain Registrator' }).click();
  await pick(page, 'domainRegistratorId', 'Select a domain registrator', `Registrar ${s.tag}`);
  await page.getByLabel('Expiration Date').fill('2027-05-31');

  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Domain created successfully');
  await expect(page).toHaveURL(/\/domains\/[0-9a-f-]{36}(\?tab=[a-z-]+)?$/);
  await expect(page.getByRole('heading', { name: 'Edit Domain' })).toBeVisible();
  const domainId = idFrom(page.url());

  // Each tab by URL.
  await page.goto(`/domains/${domainId}?tab=general`);
  await expect(page.getByRole('tab', { name: 'General', selected: true })).toBeVisible();
  await expect(page.getByLabel('Domain Name')).toHaveValue(unicodeName);
  await expect(page.getByText(`Stored as ${asciiName}`)).toBeVisible();
  await expect(page.getByTestId('field-brandId').getByRole('textbox')).toHaveValue(`Brand ${s.tag}`);
  await page.goto(`/domains/${domainId}?tab=cloud`);
  await expect(page.getByRole('tab', { name: 'Cloud', selected: true })).toBeVisible();
  await expect(page.getByTestId('field-cloudId').getByRole('textbox')).toHaveValue(`${s.tag}-used@example.com`);
  await expect(page.getByText('Another domain of this brand already uses this cloud.')).toBeVisible();
  await expect(page.getByText('Cloud Zone Id')).toBeVisible();
  await page.goto(`/domains/${domainId}?tab=yandex-webmaster`);
  await expect(page.getByRole('tab', { name: 'Yandex Webmaster', selected: true })).toBeVisible();
  await expect(page.getByTestId('field-yandexWebmasterAccountId')).toBeVisible();
  await page.goto(`/domains/${domainId}?tab=domain-registrator`);
  await expect(page.getByRole('tab', { name: 'Domain Registrator', selected: true })).toBeVisible();
  await expect(page.getByTestId('field-domainRegistratorId').getByRole('textbox')).toHaveValue(`Registrar ${s.tag}`);
  await expect(page.getByLabel('Expiration Date')).toHaveValue('2027-05-31');

  // The header menus, in the spec's order.
  await page.getByRole('button', { name: 'Domain Actions' }).click();
  await expect(page.locator('.dropdown-menu.show').getByRole('link')).toHaveText([
    'Setup WAF',
    'Domain Parsing',
    'Generate Sitemap',
    'Copy Content Files',
    'Edit Content Files',
    'Delete Domain',
    'Domain Replacement',
    'Register Domain',
  ]);
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Cloud Actions' }).click();
  const cloudActions = page.getByRole('dialog', { name: 'Cloud Actions' });
  await expect(cloudActions.getByRole('link')).toHaveText([
    'Create Zone',
    'Link Zone',
    'Update Firewall Rules',
    'Update SSL Settings',
    'Update TLS 1.3 Settings',
    'Update DNS',
    'Update Redirect Rules',
    'Purge Cache',
  ]);
  await cloudActions.getByRole('button', { name: 'Close' }).click();

  // Setup WAF: two rules, the second with its priority changed; picking a rule twice keeps it once.
  await page.getByRole('button', { name: 'Domain Actions' }).click();
  await page.locator('.dropdown-menu.show').getByRole('link', { name: 'Setup WAF' }).click();
  await expect(page).toHaveURL(new RegExp(`/domains/${domainId}/firewall-rules$`));
  await expect(page.getByRole('heading', { name: 'Setup WAF' })).toBeVisible();
  const wafRows = page.getByRole('table', { name: 'Firewall rules' }).locator('tbody tr');
  await expect(wafRows).toHaveText(['No firewall rules']);
  for (const name of [`Block ${s.tag}`, `Challenge ${s.tag}`, `Block ${s.tag}`]) {
    await page.getByRole('button', { name: 'Add Rule' }).click();
    const picker = page.getByRole('dialog', { name: 'Select a firewall rule' });
    await picker.getByRole('searchbox', { name: 'Search' }).fill(name);
    await expect(tableRows(picker)).toHaveCount(1);
    await tableRows(picker).first().click();
    await expect(picker).toBeHidden();
  }
  await expect(page.getByText(`Block ${s.tag} is already in the list.`)).toBeVisible();
  await expect(wafRows).toHaveCount(2);
  await expect(page.getByLabel(`Priority of Block ${s.tag}`)).toHaveValue('7');
  await expect(page.getByLabel(`Priority of Challenge ${s.tag}`)).toHaveValue('30');
  await page.getByLabel(`Priority of Challenge ${s.tag}`).fill('3');
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'Firewall rules saved successfully');
  await page.reload();
  await expect(wafRows).toHaveCount(2);
  await expect(wafRows.nth(0)).toContainText(`Block ${s.tag}`);
  await expect(page.getByLabel(`Priority of Challenge ${s.tag}`)).toHaveValue('3');
  const saved = await request.get(`/api/domains/${domainId}/firewall-rules`, { headers: { Authorization: s.token } });
  expect(((await saved.json()) as { data: { items: { priority: number }[] } }).data.items).toMatchObject([
    { ruleId: s.rules[0]!._id, priority: 7 },
    { ruleId: s.rules[1]!._id, priority: 3 },
  ]);

  // The list: search (typed in Unicode) finds it; Export downloads the matching rows as CSV.
  await page.goto('/domains');
  await page.getByRole('searchbox', { name: 'Search' }).fill(`bücher-${s.tag}`);
  await expect(tableRows(page)).toHaveCount(1);
  const row = tableRows(page).first();
  await expect(row).toContainText(unicodeName);
  await expect(row).toContainText(`www.${s.tag}.test`);
  await expect(row).toContainText('Yes');
  await expect(row).toContainText('active');
  const exported = async () => {
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('domains.csv');
    return parseCsv(fs.readFileSync((await download.path())!, 'utf8'));
  };
  const specColumns = [
    'Number',
    'Domain Name',
    'Domain Name (ASCII)',
    'Redirect Domain',
    'Expiration Date',
    'Restricted',
    'Status',
  ];
  // By default the spec's columns, on screen and in the export.
  const csv = await exported();
  expect(csv[0]).toEqual(specColumns);
  expect(csv.slice(1)).toHaveLength(1);
  expect(csv[1]!.slice(1)).toEqual([unicodeName, asciiName, `www.${s.tag}.test`, '2027-05-31', 'Yes', 'active']);

  // The column chooser adds columns, remembered in this browser, and the export follows what is shown.
  await page.getByRole('button', { name: 'Columns' }).click();
  for (const name of ['Server', 'Brand', 'Cloud and zone', 'Domain Registrator'])
    await page.getByRole('checkbox', { name, exact: true }).check();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('columnheader', { name: 'Registrator' })).toBeVisible();
  await expect(row).toContainText('198.51.100.77');
  await page.reload();
  await expect(page.getByRole('button', { name: 'Columns (+4)' })).toBeVisible();
  await expect(tableRows(page).first()).toContainText(`Brand ${s.tag}`);
  const wide = await exported();
  expect(wide[0]).toEqual([...specColumns, 'Server', 'Brand', 'Cloud', 'Cloud Zone Id', 'Domain Registrator']);
  expect(wide[1]!.slice(7)).toEqual([
    '198.51.100.77',
    `Brand ${s.tag}`,
    `${s.tag}-used@example.com`,
    '',
    `Registrar ${s.tag}`,
  ]);

  // Delete: the confirm, then the delete, then back to the list.
  await row.getByRole('link', { name: unicodeName }).click();
  await expect(page.getByRole('heading', { name: 'Edit Domain' })).toBeVisible();
  await page.getByRole('button', { name: 'Domain Actions' }).click();
  await page.locator('.dropdown-menu.show').getByRole('link', { name: 'Delete Domain' }).click();
  await expect(page).toHaveURL(new RegExp(`/domains/${domainId}/delete$`));
  await expect(dialog(page)).toContainText('Are you sure you want to delete this domain?');
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'Domain deleted successfully');
  await expect(page).toHaveURL(/\/domains$/);
  expect((await request.get(`/api/domains/${domainId}`, { headers: { Authorization: s.token } })).status()).toBe(404);

  // The linked records are free again once the sibling goes too.
  await apiDelete(request, s.token, 'domains', s.sibling._id);
  for (const rule of s.rules) await apiDelete(request, s.token, 'firewall-rules', rule._id);
  await apiDelete(request, s.token, 'clouds', s.usedCloud._id);
  await apiDelete(request, s.token, 'clouds', s.freeCloud._id);
  await apiDelete(request, s.token, 'servers', s.server._id);
  await apiDelete(request, s.token, 'brands', s.brand._id);
  await apiDelete(request, s.token, 'domain-registrators', s.registrator._id);
});
