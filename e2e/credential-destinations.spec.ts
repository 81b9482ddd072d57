import { apiCreate, apiDelete, apiToken, expect, expectToast, signIn, test, uniqueName } from './fixtures.ts';

/**
 * Decision 058 in the browser: a form that moves a stored credential somewhere else (a panel URI, an SMTP port)
 * says beside the credential's field that it must be typed again, and saves once it is.
 */
test('moving a stored credential asks for it again beside its field', async ({ page, request, consoleGuard }) => {
  // The refused saves are 400s, which the browser logs.
  consoleGuard.allow(/status of 400/);
  const token = await apiToken(request);
  const server = await apiCreate(request, token, 'servers', {
    IPAddress: '192.0.2.58',
    email: `${uniqueName('e2e-dest')
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '')}@example.com`,
    directAdminUri: 'https://da.example:2222',
    directAdminUsername: 'admin',
    directAdminPassword: 'da-secret',
  });
  const channel = await apiCreate(request, token, 'notification-channels', {
    name: uniqueName('E2E destination'),
    kind: 'email',
    smtpHost: 'mail.example.com',
    smtpPort: 587,
    smtpSecurity: 'starttls',
    smtpUser: 'alerts',
    smtpPassword: 'smtp-secret',
    emailFrom: 'fleetdesk@example.com',
    emailTo: 'ops@example.com',
  });

  await signIn(page);
  await page.goto(`/servers/${server._id}?tab=direct-admin`);
  await page.getByLabel('Direct Admin URI', { exact: true }).fill('https://da2.example:2222');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Enter the Direct Admin password again to change the Direct Admin URI')).toBeVisible();
  await page.getByLabel('Direct Admin Password', { exact: true }).fill('da-secret');
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'Server saved successfully');
  await expect(page.getByLabel('Direct Admin URI', { exact: true })).toHaveValue('https://da2.example:2222');

  await page.goto(`/notification-channels/${channel._id}`);
  await expect(page.getByText('Enter it again to change the host, port or security.')).toBeVisible();
  await page.getByLabel('Port', { exact: true }).fill('2525');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Enter the password again to change the port')).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill('smtp-secret');
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'Channel saved successfully');
  await expect(page.getByLabel('Port', { exact: true })).toHaveValue('2525');

  await apiDelete(request, token, 'notification-channels', channel._id);
  await apiDelete(request, token, 'servers', server._id);
});
