import type { Page } from '@playwright/test';
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

/** Opens the picker of one form field and picks the single row its search finds. */
async function pickIn(page: Page, field: string, title: string, search: string) {
  await page.getByTestId(`field-${field}`).getByRole('button', { name: 'Select' }).click();
  const picker = page.getByRole('dialog', { name: title });
  await expect(picker).toBeVisible();
  await picker.getByRole('searchbox', { name: 'Search' }).fill(search);
  await expect(tableRows(picker)).toHaveCount(1);
  await tableRows(picker).first().click();
  await expect(picker).toBeHidden();
}

test('creates a DNS template and a launch profile through the screens; the template cannot go while in use', async ({
  page,
  request,
  consoleGuard,
}) => {
  // The refused delete answers 409, which the browser logs.
  consoleGuard.allow(/status of 409/);
  const token = await apiToken(request);
  const tag = uniqueName('lp').replace(/\s+/g, '-').toLowerCase();
  const server = await apiCreate(request, token, 'servers', {
    IPAddress: `198.51.100.${1 + Math.floor(Math.random() * 250)}`,
    email: `${tag}@fleetdesk.local`,
  });
  const cloud = await apiCreate(request, token, 'clouds', { email: `${tag}@cloud.example` });
  const templateName = uniqueName('E2E Template');
  const profileName = uniqueName('E2E Profile');

  await signIn(page);

  // The template: the first row is ready (A @ → {serverIp}), two more are added.
  await page.goto('/dns-templates');
  await expect(page.getByRole('heading', { name: 'DNS Templates' })).toBeVisible();
  await page.getByRole('link', { name: 'Create DNS Template' }).click();
  await expect(page.getByRole('heading', { name: 'Create DNS Template' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill(templateName);
  await page.getByRole('button', { name: 'Add record' }).click();
  await page.getByLabel('Record 2 type').selectOption('CNAME');
  await page.getByLabel('Record 2 name').fill('www');
  await page.getByLabel('Record 2 content').fill('{domain}');
  await page.getByRole('button', { name: 'Add record' }).click();
  await page.getByLabel('Record 3 content').fill('v=spf1 {policy}');
  await page.getByRole('button', { name: 'Create' }).click();
  // Checked before sending, on the row's own field.
  await expect(page.getByTestId('record-row-2')).toContainText(
    'Unknown placeholder {policy}: only {domain} and {serverIp} can be used',
  );
  await page.getByLabel('Record 3 content').fill('v=spf1 -all');
  const posted = page.waitForRequest(
    (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/dns-templates',
  );
  await page.getByRole('button', { name: 'Create' }).click();
  expect((await posted).postDataJSON()).toMatchObject({
    name: templateName,
    records: [
      { type: 'A', name: '@', content: '{serverIp}', proxied: true },
      { type: 'CNAME', name: 'www', content: '{domain}' },
      { type: 'TXT', name: '@', content: 'v=spf1 -all', proxied: false },
    ],
  });
  await expectToast(page, 'DNS Template created successfully');
  await expect(page).toHaveURL(/\/dns-templates\/[0-9a-f-]{36}$/);
  const templateUrl = page.url();
  const templateId = templateUrl.split('/').pop()!;

  await page.goto(`/dns-templates?search=${encodeURIComponent(templateName)}`);
  await expect(tableRows(page)).toHaveCount(1);
  await expect(tableRows(page).first()).toContainText('CNAME www → {domain}');

  // The profile: server, cloud and template picked in their modals; SSL strict and TLS 1.3 by default.
  await page.goto('/launch-profiles');
  await expect(page.getByRole('heading', { name: 'Launch Profiles' })).toBeVisible();
  await page.getByRole('link', { name: 'Create Launch Profile' }).click();
  await expect(page.getByRole('heading', { name: 'Create Launch Profile' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill(profileName);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByTestId('field-serverId')).toContainText('Server is required');
  await pickIn(page, 'serverId', 'Select a server', `${tag}@fleetdesk.local`);
  await pickIn(page, 'cloudId', 'Select a cloud', `${tag}@cloud.example`);
  await pickIn(page, 'dnsTemplateId', 'Select a DNS template', templateName);
  await expect(page.getByTestId('field-dnsTemplateId').getByRole('textbox')).toHaveValue(templateName);
  await expect(page.getByLabel('SSL Mode')).toHaveValue('strict');
  const profilePosted = page.waitForRequest(
    (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/launch-profiles',
  );
  await page.getByRole('button', { name: 'Create' }).click();
  expect((await profilePosted).postDataJSON()).toMatchObject({
    name: profileName,
    serverId: server._id,
    cloudId: cloud._id,
    dnsTemplateId: templateId,
    sslMode: 'strict',
    tls13: true,
    register: false,
  });
  await expectToast(page, 'Launch Profile created successfully');
  await expect(page).toHaveURL(/\/launch-profiles\/[0-9a-f-]{36}$/);
  const profileId = page.url().split('/').pop()!;
  // Loaded again, the pickers show the names of what the profile points at.
  await page.reload();
  await expect(page.getByTestId('field-dnsTemplateId').getByRole('textbox')).toHaveValue(templateName);
  await expect(page.getByTestId('field-cloudId').getByRole('textbox')).toHaveValue(`${tag}@cloud.example`);

  await page.goto(`/launch-profiles?search=${encodeURIComponent(profileName)}`);
  await expect(tableRows(page)).toHaveCount(1);
  await expect(tableRows(page).first()).toContainText('Full strict, TLS 1.3');

  // In use: marked in the list, and its delete refused with the profile's name.
  await page.goto(`/dns-templates?search=${encodeURIComponent(templateName)}`);
  await expect(page.getByRole('columnheader', { name: 'In Use' })).toBeVisible();
  await expect(tableRows(page).first().getByTestId('in-use-icon')).toBeVisible();
  await page.goto(templateUrl);
  await page.getByRole('link', { name: 'Delete DNS Template' }).click();
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expect(dialog(page)).toContainText(
    `This DNS template cannot be deleted: it is used by 1 launch profile (${profileName})`,
  );
  await dialog(page).getByRole('button', { name: 'OK' }).click();

  await apiDelete(request, token, 'launch-profiles', profileId);
  await apiDelete(request, token, 'dns-templates', templateId);
  await apiDelete(request, token, 'clouds', cloud._id);
  await apiDelete(request, token, 'servers', server._id);
});
