import type { APIRequestContext } from '@playwright/test';
import { apiCreate, apiToken, expect, expectToast, signIn, test, uniqueName } from './fixtures.ts';

/**
 * The domain's hosting-panel tabs against the demo's DirectAdmin and ISPmanager simulators: a new domain on the
 * demo server that has both panels gets its site created on each.
 */

const DEMO_SERVER = 'demo-ssh@fleetdesk.local';

async function domainOnPanelServer(request: APIRequestContext) {
  const token = await apiToken(request);
  const response = await request.get(`/api/servers?search=${encodeURIComponent(DEMO_SERVER)}`, {
    headers: { Authorization: token },
  });
  expect(response.ok()).toBe(true);
  const servers = ((await response.json()) as { data: { items: { _id: string; email: string }[] } }).data.items;
  const server = servers.find((s) => s.email === DEMO_SERVER);
  expect(server, 'the demo panel server').toBeTruthy();
  const domainName = `${uniqueName('e2e-panel').replace(/\s+/g, '-').toLowerCase()}.com`;
  const domain = await apiCreate(request, token, 'domains', { domainName, status: 'active', serverId: server!._id });
  return { domainId: domain._id, domainName };
}

test('creates the domain on DirectAdmin, then deletes it after a confirm', async ({ page, request }) => {
  const { domainId, domainName } = await domainOnPanelServer(request);
  await signIn(page);
  await page.goto(`/domains/${domainId}?tab=direct-admin`);
  await expect(page.getByRole('tab', { name: 'Direct Admin', selected: true })).toBeVisible();
  const panel = page.getByTestId('direct-admin-panel');
  await expect(panel.getByTestId('direct-admin-state')).toHaveText('The domain is not created on Direct Admin.');

  await panel.getByRole('button', { name: 'Create domain' }).click();
  await expectToast(page, 'Domain created on Direct Admin');
  await expect(panel.getByTestId('direct-admin-state')).toHaveText('The domain is created on Direct Admin.');
  await expect(panel.getByTestId('direct-admin-details')).toContainText(domainName);

  // Delete asks first; Cancel keeps the domain.
  await panel.getByRole('button', { name: 'Delete domain' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete domain' });
  await expect(confirm).toContainText(`Delete ${domainName} from Direct Admin?`);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(panel.getByTestId('direct-admin-state')).toHaveText('The domain is created on Direct Admin.');

  await panel.getByRole('button', { name: 'Delete domain' }).click();
  await page.getByRole('dialog', { name: 'Delete domain' }).getByRole('button', { name: 'Delete domain' }).click();
  await expectToast(page, 'Domain deleted from Direct Admin');
  await expect(panel.getByTestId('direct-admin-state')).toHaveText('The domain is not created on Direct Admin.');
  await expect(panel.getByRole('button', { name: 'Create domain' })).toBeVisible();
});

test("shows DirectAdmin's own refusal", async ({ page, request, consoleGuard }) => {
  const { domainId, domainName } = await domainOnPanelServer(request);
  consoleGuard.allow(/502/);
  await signIn(page);
  await page.goto(`/domains/${domainId}?tab=direct-admin`);
  const panel = page.getByTestId('direct-admin-panel');
  await panel.getByRole('button', { name: 'Create domain' }).click();
  await expect(panel.getByTestId('direct-admin-state')).toHaveText('The domain is created on Direct Admin.');
  // A second create of the same name, as from a stale tab: DirectAdmin refuses it, in its words.
  const token = await apiToken(request);
  const again = await request.post(`/api/domains/${domainId}/direct-admin/create-domain`, {
    headers: { Authorization: token },
  });
  expect(again.status()).toBe(502);
  expect(((await again.json()) as { serviceResponse: { error: string } }).serviceResponse.error).toBe(
    'Cannot create domain',
  );
  await page.route(`**/api/domains/${domainId}/direct-admin/domain-info`, (route) =>
    route.fulfill({ json: { data: { domainCreated: false, domainName, domainInfoData: null } } }),
  );
  await page.reload();
  await page.getByTestId('direct-admin-panel').getByRole('button', { name: 'Create domain' }).click();
  const error = page.getByTestId('direct-admin-error');
  await expect(error).toContainText('Cannot create domain');
  await expect(error).toContainText('That domain already exists on this server.');
});

test('creates the domain site on ISPmanager and shows its details', async ({ page, request }) => {
  const { domainId, domainName } = await domainOnPanelServer(request);
  await signIn(page);
  await page.goto(`/domains/${domainId}?tab=isp-manager`);
  await expect(page.getByRole('tab', { name: 'ISP Manager', selected: true })).toBeVisible();
  const panel = page.getByTestId('ispmanager-panel');
  await expect(panel.getByTestId('ispmanager-state')).toHaveText('The site is not created on ISP Manager.');
  await panel.getByRole('button', { name: 'Create site' }).click();
  await expectToast(page, 'Site created on ISP Manager');
  await expect(panel.getByTestId('ispmanager-state')).toHaveText('The site is created on ISP Manager.');
  const details = panel.getByTestId('ispmanager-details');
  await expect(details).toContainText(domainName);
  await expect(details).toContainText(`webmaster@${domainName}`);
  // Still there after a reload: read back from the panel.
  await page.reload();
  await expect(page.getByTestId('ispmanager-state')).toHaveText('The site is created on ISP Manager.');
});
