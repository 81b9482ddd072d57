import type { APIRequestContext } from '@playwright/test';
import type { Page } from '@playwright/test';
import { apiCreate, apiToken, expect, signIn, test, toast, uniqueName } from './fixtures.ts';

/**
 * The domain's hosting-panel tabs against the demo's DirectAdmin and ISPmanager simulators: a new domain on the
 * demo server that has both panels gets its site created on each.
 */

const DEMO_SERVER = 'demo-ssh@fleetdesk.local';

/** The success toast; not closed by hand, since on a slow machine it may hide itself while being clicked. */
async function seeToast(page: Page, text: string) {
  const item = toast(page, text);
  await expect(item).toBeVisible();
  await expect(item.locator('.toast-header')).toHaveText('Success');
}

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
  await seeToast(page, 'Domain created on Direct Admin');
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
  await seeToast(page, 'Domain deleted from Direct Admin');
  await expect(panel.getByTestId('direct-admin-state')).toHaveText('The domain is not created on Direct Admin.');
  await expect(panel.getByRole('button', { name: 'Create domain' })).toBeVisible();
});

test("shows DirectAdmin's own refusal", async ({ page, request, consoleGuard }) => {
  const { domainId, domainName } = await domainOnPanelServer(request);
  consoleGuard.allow(/502/);
  // The domain is created on DirectAdmin behind the tab's back, which still shows "not created" (a stale view):
  // its Create domain is then refused by DirectAdmin, in its own words.
  const token = await apiToken(request);
  const first = await request.post(`/api/domains/${domainId}/direct-admin/create-domain`, {
    headers: { Authorization: token },
  });
  expect(first.status(), await first.text()).toBe(200);
  await page.route(`**/api/domains/${domainId}/direct-admin/domain-info`, (route) =>
    route.fulfill({ json: { data: { domainCreated: false, domainName, domainInfoData: null } } }),
  );
  await signIn(page);
  await page.goto(`/domains/${domainId}?tab=direct-admin`);
  const panel = page.getByTestId('direct-admin-panel');
  await panel.getByRole('button', { name: 'Create domain' }).click();
  const error = panel.getByTestId('direct-admin-error');
  await expect(error).toContainText('Cannot create domain');
  await expect(error).toContainText('That domain already exists on this server.');
});

test('creates the domain site on ISPmanager and shows its details', async ({ page, request, consoleGuard }) => {
  const { domainId, domainName } = await domainOnPanelServer(request);
  // site-info answers 404 siteNotCreated until the site exists; the browser logs that response.
  consoleGuard.allow(/404/);
  await signIn(page);
  await page.goto(`/domains/${domainId}?tab=isp-manager`);
  await expect(page.getByRole('tab', { name: 'ISP Manager', selected: true })).toBeVisible();
  const panel = page.getByTestId('ispmanager-panel');
  await expect(panel.getByTestId('ispmanager-state')).toHaveText('The site is not created on ISP Manager.');
  await panel.getByRole('button', { name: 'Create site' }).click();
  await seeToast(page, 'Site created on ISP Manager');
  await expect(panel.getByTestId('ispmanager-state')).toHaveText('The site is created on ISP Manager.');
  const details = panel.getByTestId('ispmanager-details');
  await expect(details).toContainText(domainName);
  await expect(details).toContainText(`webmaster@${domainName}`);
  // Still there after a reload: read back from the panel.
  await page.reload();
  await expect(page.getByTestId('ispmanager-state')).toHaveText('The site is created on ISP Manager.');
});
