import {
  apiCall as api,
  apiCreate,
  apiToken,
  dialog,
  expect,
  expectToast,
  signIn,
  test,
  uniqueName,
} from './fixtures.ts';

/**
 * Issue 43: a CAA record is edited field by field in the DNS editor and reaches the demo's Cloudflare simulator as
 * `data` (the simulator refuses CAA content, as Cloudflare's OpenAPI does).
 */
test('DNS editor: a CAA record by its fields (flags, tag, value), saved as data and read back', async ({
  page,
  request,
}) => {
  const token = await apiToken(request);
  const clouds = await api<{ items: { _id: string; email: string }[] }>(
    request,
    token,
    'GET',
    `/api/clouds?search=${encodeURIComponent('ops@fleetdesk-demo.com')}`,
  );
  const cloud = clouds.items.find((c) => c.email === 'ops@fleetdesk-demo.com')!;
  const domainName = `${uniqueName('e2e-caa').replace(/\s+/g, '-').toLowerCase()}.com`;
  const domain = await apiCreate(request, token, 'domains', { domainName, status: 'active', cloudId: cloud._id });
  await api(request, token, 'POST', `/api/domains/${domain._id}/cloud-flare/create-zone`);

  await signIn(page);
  await page.goto(`/domains/${domain._id}/cloud-flare/update-dns`);
  await expect(page.getByRole('heading', { name: 'Update DNS' })).toBeVisible();
  await page.getByRole('button', { name: 'Add Record' }).click();
  const row = page.getByTestId('dns-row').last();
  await row.getByLabel('Type').selectOption('CAA');
  await row.getByLabel('Name', { exact: true }).fill('@');
  const fields = row.getByTestId('dns-data-fields');
  await fields.getByLabel('CAA Flags').fill('0');
  await fields.getByLabel('CAA Tag').fill('issue');
  await fields.getByLabel('CAA Value').fill('letsencrypt.org');
  await expect(row.getByLabel('Content', { exact: true })).toHaveValue('0 issue "letsencrypt.org"');
  // A flag out of Cloudflare's range is refused before anything is sent.
  await fields.getByLabel('CAA Flags').fill('300');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(dialog(page)).toContainText('Some records are incomplete');
  await dialog(page).getByRole('button', { name: 'OK' }).click();
  await expect(row).toContainText('Content of a CAA record must be flags tag "value"');
  await fields.getByLabel('CAA Flags').fill('128');
  await page.getByRole('button', { name: 'Save' }).click();
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'DNS records saved: 1 added, 0 changed, 0 deleted');

  const records = await api<{ result: { type: string; content: string }[] }>(
    request,
    token,
    'GET',
    `/api/domains/${domain._id}/cloud-flare/dns_records`,
  );
  expect(records.result).toEqual([expect.objectContaining({ type: 'CAA', content: '128 issue "letsencrypt.org"' })]);
  // Read back, the fields show the record again.
  await page.reload();
  const back = page.getByTestId('dns-row').first().getByTestId('dns-data-fields');
  await expect(back.getByLabel('CAA Tag')).toHaveValue('issue');
  await expect(back.getByLabel('CAA Value')).toHaveValue('letsencrypt.org');
});
