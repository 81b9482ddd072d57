import { readFile } from 'node:fs/promises';
import { dialog, expect, signIn, tableRows, test, toast } from './fixtures.ts';

/**
 * Imports and zone files in the browser: import the demo's Cloudflare account (64 zones, two pages), open one of
 * the new domains, export its zone file, edit it, import it back and apply the difference.
 */
const IMPORT_CLOUD = 'imports@harbor-demo.com';
const ZONE = 'harbor-007-demo.com';

test('imports a Cloudflare account, then round-trips a zone file through the DNS editor', async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page);
  await page.getByRole('link', { name: 'Imports', exact: true }).first().click();
  await page.getByRole('link', { name: 'New import' }).click();
  await expect(page.getByRole('heading', { name: 'New import' })).toBeVisible();
  await page.getByLabel('Import from').selectOption({ label: 'Cloudflare account' });
  await page.getByRole('button', { name: 'Select' }).click();
  const picker = page.getByRole('dialog', { name: 'Select a cloud' });
  await picker.getByRole('searchbox', { name: 'Search' }).fill('harbor');
  await expect(tableRows(picker)).toHaveCount(1);
  await tableRows(picker).first().click();
  await expect(page.getByRole('textbox', { name: 'Cloud' })).toHaveValue(IMPORT_CLOUD);
  await page.getByRole('button', { name: 'Plan', exact: true }).click();

  // The plan: every zone of the account, over both pages of Cloudflare's list.
  await expect(page.getByRole('heading', { name: /^Import #\d+/ })).toBeVisible();
  await expect(page.getByText('Planned', { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByLabel('Names: 64')).toBeVisible();
  const region = page.getByRole('region', { name: 'Names of the import' });
  await region.getByRole('searchbox').fill(ZONE);
  await region.getByRole('searchbox').press('Enter');
  await expect(tableRows(region)).toHaveCount(1);
  const run = page.getByRole('button', { name: 'Run', exact: true });
  if (await run.isEnabled()) {
    await expect(tableRows(region).first()).toContainText('Create');
    await run.click();
    await dialog(page).getByRole('button', { name: 'Run' }).click();
    await expect(page.getByText('Completed', { exact: true })).toBeVisible({ timeout: 90_000 });
    await expect(page.getByTestId('import-progress')).toContainText('0 failed');
  }

  // The new domain, linked to its zone: its DNS editor.
  await page.goto(`/domains?search=${ZONE}`);
  await page.getByRole('link', { name: ZONE, exact: true }).first().click();
  await expect(page).toHaveURL(/\/domains\/[0-9a-f-]{36}/);
  const id = /\/domains\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  await page.goto(`/domains/${id}/cloud-flare/update-dns`);
  await expect(page.getByTestId('dns-records')).toBeVisible();

  // Export, edit (a new record, a changed one), import back.
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export zone file' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`${ZONE}.txt`);
  const text = await readFile((await download.path())!, 'utf8');
  expect(text).toContain(`${ZONE}.\t1\tIN\tA\t`);
  expect(text).toContain('cf_tags=cf-proxied:true');
  const edited = `${text.replace('v=spf1 mx -all', 'v=spf1 mx include:_spf.example.net -all')}e2e-added\t300\tIN\tA\t192.0.2.77\nbroken IN A nope\n`;

  await page.getByRole('button', { name: 'Import zone file' }).click();
  const modal = page.getByTestId('zone-import');
  await modal
    .getByLabel(/BIND zone file/)
    .setInputFiles({ name: 'edited.txt', mimeType: 'text/plain', buffer: Buffer.from(edited) });
  await modal.getByRole('button', { name: 'Show the difference' }).click();
  await expect(page.getByTestId('zone-import-counts')).toContainText('1 added, 1 changed, 0 removed');
  await expect(page.getByTestId('zone-import-problems')).toContainText('"nope" is not an IPv4 address');
  await page.getByRole('button', { name: 'Apply chosen changes' }).click();
  await expect(toast(page, 'DNS records saved: 1 added, 1 changed, 0 deleted')).toBeVisible();
  const rows = page.getByTestId('dns-row');
  await expect(rows.filter({ has: page.locator('input[value="192.0.2.77"]') })).toHaveCount(1);
  await expect(
    rows.filter({ has: page.locator('input[value="v=spf1 mx include:_spf.example.net -all"]') }),
  ).toHaveCount(1);

  // Zone files of a selection, as a zip made by a job.
  await page.goto('/domains?search=harbor-00');
  await page.getByRole('checkbox', { name: `Select ${ZONE}` }).check();
  await page.getByRole('checkbox', { name: 'Select harbor-008-demo.com' }).check();
  await page.getByRole('button', { name: 'Export zone files (2)' }).click();
  await expect(page.getByRole('heading', { name: /^Zone files export/ })).toBeVisible();
  await expect(page.getByTestId('zone-export-summary')).toContainText('2 zone files', { timeout: 60_000 });
  const zipping = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download zip' }).click();
  const zip = await zipping;
  expect(zip.suggestedFilename()).toMatch(/^zone-files-.*\.zip$/);
  const bytes = await readFile((await zip.path())!);
  expect(bytes.subarray(0, 2).toString()).toBe('PK');
  expect(bytes.toString('latin1')).toContain(`${ZONE}.txt`);
  // Its breadcrumb's parent lists the exports among the jobs, not every job.
  await page.getByRole('navigation', { name: 'breadcrumb' }).getByRole('link', { name: 'Zone Export' }).click();
  await expect(page).toHaveURL(/\/jobs\?kind=zone-files\.export$/);
});
