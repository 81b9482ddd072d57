import crypto from 'node:crypto';
import type { APIRequestContext, Page } from '@playwright/test';
import {
  apiDelete,
  dialog,
  expect,
  expectToast,
  signIn,
  tableRows,
  test,
  uniqueName,
  type ConsoleGuard,
} from './fixtures.ts';

const SECRET_MASK = '••••••••';
const HUMAN_BYTES = /^\d+(\.\d)? (B|KB|MB|GB|TB|PB)$/;

interface ServerItem {
  _id: string;
  serverNo: number;
  IPAddress: string;
  sshPort: number;
  domainsPath: string | null;
  status: string;
  rsaKeySet: boolean;
}

/** The token the console stored at sign-in, for reading the demo data through the API. */
async function storedToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => localStorage.getItem('fleetdesk.token'));
  expect(token).toMatch(/^Bearer /);
  return token!;
}

async function apiGet<T>(request: APIRequestContext, token: string, path: string): Promise<T> {
  const response = await request.get(path, { headers: { Authorization: token } });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { data: T }).data;
}

/** The demo's seeded servers: the first points at the in-process SSH host, a later 127.0.0.1 one at a closed port. */
async function demoServers(request: APIRequestContext, token: string) {
  const { items } = await apiGet<{ items: ServerItem[] }>(request, token, '/api/servers?search=127.0.0.1');
  const seeded = [...items].sort((a, b) => a.serverNo - b.serverNo);
  const live = seeded[0];
  expect(live, 'the demo SSH server').toBeDefined();
  expect(live!.IPAddress).toBe('127.0.0.1');
  expect(live!.domainsPath).toMatch(/^\//);
  const closed = seeded.find((s) => s._id !== live!._id && s.sshPort !== live!.sshPort);
  expect(closed, 'the demo closed-port server').toBeDefined();
  return { live: live!, closed: closed! };
}

/** The browser logs each 4xx/5xx it receives; these pages provoke some on purpose. */
function allowHttpErrors(consoleGuard: ConsoleGuard, ...statuses: number[]) {
  for (const status of statuses) consoleGuard.allow(new RegExp(`status of ${status}`));
}

/** Picks an item in a modal picker by searching for it. */
async function pick(page: Page, title: string, search: string) {
  const picker = page.getByRole('dialog', { name: title });
  await expect(picker).toBeVisible();
  await picker.getByRole('searchbox', { name: 'Search' }).fill(search);
  await expect(tableRows(picker)).toHaveCount(1);
  await tableRows(picker).first().click();
  await expect(picker).toBeHidden();
}

/** Runs the connection test on the open test-connection page. */
async function runConnectionTest(page: Page) {
  const button = page.getByRole('button', { name: 'Test Connection' });
  await button.click();
  await expect(button).toBeEnabled({ timeout: 20_000 });
  return page.getByTestId('test-connection-result');
}

test('creates a region, a proxy with that region picked in the modal, and checks a proxy', async ({
  page,
  request,
}) => {
  const regionName = uniqueName('E2E Infra Region');
  const password = `proxy-secret-${crypto.randomUUID()}`;
  const ip = `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
  const port = String(20000 + Math.floor(Math.random() * 40000));

  await signIn(page);
  const token = await storedToken(page);

  await page.goto('/regions/create');
  await page.getByLabel('Name').fill(regionName);
  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Region created successfully');
  const regionId = page.url().split('/').pop()!;

  await page.goto('/proxies');
  await expect(page.getByRole('heading', { name: 'Proxies' })).toBeVisible();
  // The spec's columns, then the proxy check's Status (beyond the spec).
  await expect(page.getByRole('columnheader')).toHaveText([
    '#',
    '№',
    'HTTP',
    'IP Address',
    'Port',
    'Region',
    'Type',
    'Status',
  ]);
  await page.getByRole('link', { name: 'Create Proxy' }).click();
  await expect(page.getByRole('heading', { name: 'Create Proxy' })).toBeVisible();

  // Client-side validation from the contract.
  await page.getByLabel('IP Address').fill('999.1.1.1');
  await page.getByLabel('Port', { exact: true }).fill('70000');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Must be a valid IPv4 or IPv6 address')).toBeVisible();
  await expect(page.getByText('Port must be a whole number from 1 to 65535')).toBeVisible();

  await page.getByLabel('HTTPS', { exact: true }).check();
  await page.getByLabel('IP Address').fill(ip);
  await page.getByLabel('Port', { exact: true }).fill(port);
  await page.getByLabel('Username', { exact: true }).fill('e2e-user');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Show Password' }).click();
  await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('type', 'text');
  await page.getByRole('button', { name: 'Hide Password' }).click();
  await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('type', 'password');
  await page.getByRole('button', { name: 'Select' }).click();
  await pick(page, 'Select a region', regionName);
  await expect(page.getByLabel('Region', { exact: true })).toHaveValue(regionName);
  await page.getByLabel('Type', { exact: true }).selectOption('http');

  const posted = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/proxies');
  await page.getByRole('button', { name: 'Create' }).click();
  const body = (await posted).postDataJSON() as Record<string, unknown>;
  // The spec's forms send isHttps as a string.
  expect(body).toMatchObject({ isHttps: 'true', IPAddress: ip, httpPort: Number(port), regionId, proxyType: 'http' });
  await expectToast(page, 'Proxy created successfully');
  await expect(page).toHaveURL(/\/proxies\/[0-9a-f-]{36}$/);
  const editUrl = page.url();
  await expect(page.getByRole('heading', { name: 'Edit Proxy' })).toBeVisible();
  await expect(page.getByLabel('HTTPS', { exact: true })).toBeChecked();
  await expect(page.getByLabel('Region', { exact: true })).toHaveValue(regionName);
  // The stored password comes back masked; the eye reads it through the audited reveal call.
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue(SECRET_MASK);
  const revealed = page.waitForResponse((r) => r.url().endsWith('/reveal'));
  await page.getByRole('button', { name: 'Show Password' }).click();
  expect((await revealed).status()).toBe(200);
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue(password);

  await page.getByLabel('Port', { exact: true }).fill('8443');
  // A new port is where the stored password goes next: it is typed again to move it (decision 058).
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'Proxy saved successfully');
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue(SECRET_MASK);
  const stored = await apiGet<{ httpPort: number; password: string }>(
    request,
    token,
    `/api/proxies/${editUrl.split('/').pop()}`,
  );
  expect(stored).toMatchObject({ httpPort: 8443, password: SECRET_MASK });

  await page.getByRole('link', { name: 'Back to list' }).click();
  await page.getByRole('searchbox', { name: 'Search' }).fill(ip);
  await expect(tableRows(page)).toHaveCount(1);
  await expect(tableRows(page).first().locator('td')).toHaveText([
    '1',
    /^\d+$/,
    'Yes',
    ip,
    '8443',
    regionName,
    'http',
    'Not checked',
  ]);

  // The check through the demo's live forward proxy (the first seeded proxy).
  const { items: proxies } = await apiGet<{ items: { _id: string; proxyNo: number }[] }>(
    request,
    token,
    '/api/proxies',
  );
  const demoProxy = [...proxies].sort((a, b) => a.proxyNo - b.proxyNo)[0]!;
  await page.goto(`/proxies/${demoProxy._id}`);
  await page.getByRole('button', { name: 'Check Proxy' }).click();
  await expect(page.locator('.alert-success')).toContainText(/The proxy works \(\d+ ms\)/, { timeout: 20_000 });
  await expect(page.getByTestId('proxy-check-status')).toContainText('OK');
  await page.goto('/proxies');
  await page.getByRole('searchbox', { name: 'Search' }).fill('127.0.0.1');
  const demoRow = tableRows(page).filter({
    has: page.locator('td:nth-child(2)', { hasText: new RegExp(`^${demoProxy.proxyNo}$`) }),
  });
  await expect(demoRow.locator('td').last()).toContainText(/OK\s*\d+ ms/);

  // Delete through the confirm page.
  await page.goto(`${editUrl}/delete`);
  await expect(dialog(page)).toContainText('Are you sure you want to delete this proxy?');
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'Proxy deleted successfully');
  await expect(page).toHaveURL(/\/proxies$/);

  await apiDelete(request, token, 'regions', regionId);
});

test('creates, edits and deletes a cloud with secrets and a proxy region', async ({ page, request }) => {
  const email = `${uniqueName('e2e-cloud').replace(/\s+/g, '-').toLowerCase()}@example.com`;
  const token = `cf-token-${crypto.randomUUID()}`;
  const regionName = uniqueName('E2E Cloud Region');

  await signIn(page);
  const apiAuth = await storedToken(page);
  const regionResponse = await request.post('/api/regions', {
    data: { name: regionName },
    headers: { Authorization: apiAuth },
  });
  expect(regionResponse.status()).toBe(201);
  const regionId = ((await regionResponse.json()) as { data: { _id: string } }).data._id;

  await page.goto('/clouds');
  await expect(page.getByRole('heading', { name: 'Clouds' })).toBeVisible();
  await expect(page.getByRole('columnheader')).toHaveText(['#', '№', 'Email']);
  await page.getByRole('link', { name: 'Create Cloud' }).click();
  await expect(page.getByRole('heading', { name: 'Create Cloud' })).toBeVisible();

  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Email is required')).toBeVisible();
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill('not-an-email');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Email must be a valid email address')).toBeVisible();

  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill('cloud-password');
  await page.getByLabel('Token', { exact: true }).fill(token);
  await page.getByLabel('Global API Key', { exact: true }).fill('global-api-key');
  await page.getByLabel('Email Password', { exact: true }).fill('mailbox-password');
  await page.getByRole('button', { name: 'Select' }).click();
  await pick(page, 'Select a region', regionName);
  await expect(page.getByLabel('Proxy Region', { exact: true })).toHaveValue(regionName);
  const posted = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/clouds');
  await page.getByRole('button', { name: 'Create' }).click();
  expect((await posted).postDataJSON()).toMatchObject({ email, token, proxyRegionId: regionId });
  await expectToast(page, 'Cloud created successfully');
  await expect(page).toHaveURL(/\/clouds\/[0-9a-f-]{36}$/);
  const editUrl = page.url();
  const id = editUrl.split('/').pop()!;

  await expect(page.getByRole('heading', { name: 'Edit Cloud' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Delete Cloud' })).toBeVisible();
  await expect(page.getByLabel('Proxy Region', { exact: true })).toHaveValue(regionName);
  for (const label of ['Password', 'Token', 'Global API Key', 'Email Password']) {
    await expect(page.getByLabel(label, { exact: true })).toHaveValue(SECRET_MASK);
  }
  await page.getByRole('button', { name: 'Show Token' }).click();
  await expect(page.getByLabel('Token', { exact: true })).toHaveValue(token);

  // Clear one secret, keep the others (the mask means keep).
  await page.getByRole('button', { name: 'Clear Email Password' }).click();
  await expect(page.getByLabel('Email Password', { exact: true })).toHaveValue('');
  const patched = page.waitForRequest((r) => r.method() === 'PATCH');
  await page.getByRole('button', { name: 'Save' }).click();
  const patch = (await patched).postDataJSON() as Record<string, unknown>;
  // null clears; the untouched secrets (still the mask) are left out, which keeps them.
  expect(patch).toMatchObject({ emailPassword: null });
  expect(patch).not.toHaveProperty('password');
  expect(patch).not.toHaveProperty('token');
  await expectToast(page, 'Cloud saved successfully');
  const saved = await apiGet<Record<string, unknown>>(request, apiAuth, `/api/clouds/${id}`);
  expect(saved).toMatchObject({
    email,
    password: SECRET_MASK,
    token: SECRET_MASK,
    globalAPIKey: SECRET_MASK,
    emailPassword: null,
    proxyRegion: { _id: regionId, name: regionName },
  });
  await expect(page.getByLabel('Email Password', { exact: true })).toHaveValue('');
  await expect(page.getByLabel('Token', { exact: true })).toHaveValue(SECRET_MASK);

  await page.getByRole('link', { name: 'Back to list' }).click();
  await page.getByRole('searchbox', { name: 'Search' }).fill(email);
  await expect(tableRows(page)).toHaveCount(1);
  await expect(tableRows(page).first().locator('td')).toHaveText(['1', /^\d+$/, email]);
  // The in-use parameters are accepted; In Use shows only when one is given.
  await page.goto(`/clouds?checkInUseBrandId=00000000-0000-4000-8000-000000000000`);
  await expect(page.getByRole('columnheader')).toHaveText(['#', '№', 'Email', 'In Use']);

  await page.goto(editUrl);
  await page.getByRole('link', { name: 'Delete Cloud' }).click();
  await expect(dialog(page)).toContainText('Are you sure you want to delete this cloud?');
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'Cloud deleted successfully');
  await expect(page).toHaveURL(/\/clouds$/);

  await apiDelete(request, apiAuth, 'regions', regionId);
});

test('creates a server, manages its key and tests connections against the demo SSH host', async ({
  page,
  request,
  consoleGuard,
}) => {
  test.setTimeout(120_000);
  // No key yet (400), a bad key (400), the closed port (502).
  allowHttpErrors(consoleGuard, 400, 502, 504);
  const email = `${uniqueName('e2e-server').replace(/\s+/g, '-').toLowerCase()}@example.com`;
  const daPassword = `da-${crypto.randomUUID()}`;

  await signIn(page);
  const token = await storedToken(page);
  const { live, closed } = await demoServers(request, token);

  await page.goto('/servers');
  await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();
  await expect(page.getByRole('columnheader')).toHaveText([
    '#',
    '№',
    'IP Address',
    'Domains',
    'Max Domains',
    'Status',
    'Free space',
  ]);
  await page.getByRole('link', { name: 'Create Server' }).click();
  await expect(page.getByRole('heading', { name: 'Create Server' })).toBeVisible();
  await expect(page.getByRole('tab')).toHaveText(['General', 'Direct Admin', 'ISP Manager']);
  await expect(page.getByLabel('Username', { exact: true })).toHaveValue('root');
  await expect(page.getByLabel('SSH Port', { exact: true })).toHaveValue('22');
  await expect(page.getByLabel('Domains Path', { exact: true })).toHaveAttribute('placeholder', '/www');
  await expect(page.getByLabel('Max Domains', { exact: true })).toHaveAttribute('min', '0');
  await expect(page.getByLabel('Max Domains', { exact: true })).toHaveAttribute('step', '1');

  // Validation: the contract's rules, client side.
  await page.getByLabel('Max Domains', { exact: true }).fill('1.5');
  await page.getByLabel('Domains Path', { exact: true }).fill('www');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('IP Address is required')).toBeVisible();
  await expect(page.getByText('Max Domains must be a whole number, 0 or more')).toBeVisible();
  await expect(page.getByText('Domains path must be an absolute path, such as /www')).toBeVisible();
  await page.getByLabel('IP Address').fill('not an ip');
  await page.getByLabel('Max Domains', { exact: true }).fill('-1');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Must be a valid IPv4 or IPv6 address')).toBeVisible();
  await expect(page.getByText('Max Domains must be a whole number, 0 or more')).toBeVisible();

  await page.getByLabel('IP Address').fill('127.0.0.1');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Max Domains', { exact: true }).fill('25');
  await page.getByLabel('SSH Port', { exact: true }).fill(String(live.sshPort));
  await page.getByLabel('Domains Path', { exact: true }).fill(live.domainsPath!);

  await page.getByRole('tab', { name: 'Direct Admin' }).click();
  await expect(page).toHaveURL(/[?&]tab=direct-admin/);
  await page.getByLabel('Direct Admin URI', { exact: true }).fill('https://127.0.0.1:2222');
  await page.getByLabel('Direct Admin Username', { exact: true }).fill('admin');
  await page.getByLabel('Direct Admin Password', { exact: true }).fill(daPassword);
  await page.getByRole('tab', { name: 'ISP Manager' }).click();
  await expect(page).toHaveURL(/[?&]tab=isp-manager/);
  await page.getByLabel('ISP Manager URI', { exact: true }).fill('https://127.0.0.1:1500');
  await page.getByLabel('ISP Manager Username', { exact: true }).fill('root');
  await page.getByLabel('ISP Manager Password', { exact: true }).fill('isp-password');

  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Server created successfully');
  await expect(page).toHaveURL(/\/servers\/[0-9a-f-]{36}$/);
  const editUrl = page.url();
  const id = editUrl.split('/').pop()!;
  await expect(page.getByRole('heading', { name: 'Edit Server' })).toBeVisible();
  await expect(page.getByLabel('IP Address')).toHaveValue('127.0.0.1');
  await expect(page.getByLabel('Max Domains', { exact: true })).toHaveValue('25');

  // The tab lives in ?tab= and survives a reload; the secret is masked and revealed on demand.
  await page.goto(`${editUrl}?tab=direct-admin`);
  await expect(page.getByRole('tab', { name: 'Direct Admin' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByLabel('Direct Admin Password', { exact: true })).toHaveValue(SECRET_MASK);
  await page.getByRole('button', { name: 'Show Direct Admin Password' }).click();
  await expect(page.getByLabel('Direct Admin Password', { exact: true })).toHaveValue(daPassword);

  // Without a key the test is refused (400) and shown in the red alert, with no dialog.
  await page.getByRole('link', { name: 'Test Connection' }).click();
  await expect(page).toHaveURL(`${editUrl}/test-connection`);
  await expect(page.getByRole('heading', { name: 'Server Test Connection' })).toBeVisible();
  let result = await runConnectionTest(page);
  await expect(result).toHaveClass(/alert-danger/);
  await expect(result).toHaveText('No RSA key is set for this server');
  await expect(dialog(page)).toHaveCount(0);

  // The key page: no key, an unparseable paste, then a generated pair.
  await page.getByRole('link', { name: 'Manage RSA Key' }).click();
  await expect(page).toHaveURL(`${editUrl}/rsa-key`);
  await expect(page.getByRole('heading', { name: 'Server RSA Key' })).toBeVisible();
  const info = page.getByTestId('rsa-key-info');
  await expect(info).toContainText(/Key set\s*No/);
  await page.getByLabel('RSA Key', { exact: true }).fill('this is not a key');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByLabel('RSA Key', { exact: true })).toHaveClass(/is-invalid/);
  await expect(dialog(page)).toHaveCount(0);

  await page.getByLabel('ed25519').check();
  const generated = page.waitForResponse((r) => r.url().endsWith('/rsa-key/generate'));
  await page.getByRole('button', { name: 'Generate key pair' }).click();
  // The answer carries the public line only; the private half never leaves the server.
  const generatedBody = await (await generated).text();
  expect(generatedBody).toContain('ssh-ed25519 AAAA');
  expect(generatedBody).not.toContain('PRIVATE');
  await expectToast(page, 'Key pair generated successfully');
  await expect(info).toContainText(/Key set\s*Yes/);
  await expect(info).toContainText('ssh-ed25519');
  await expect(page.getByTestId('rsa-key-fingerprint')).toHaveText(/^SHA256:/);
  const publicKey = page.getByLabel('Public key', { exact: true });
  await expect(publicKey).toHaveValue(/^ssh-ed25519 AAAA/);
  await expect(publicKey).toHaveAttribute('readonly', '');
  await page.getByRole('button', { name: 'Copy' }).click();
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();

  await page.getByRole('link', { name: 'Test Connection' }).click();
  result = await runConnectionTest(page);
  await expect(result).toHaveClass(/alert-success/);
  await expect(result).toContainText('Connection test successfull');
  await expect(dialog(page)).toHaveCount(0);

  // A pasted PEM key replaces it; then the key is deleted after the confirm.
  await page.getByRole('link', { name: 'Manage RSA Key' }).click();
  const pem = crypto
    .generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs1', format: 'pem' })
    .toString();
  await page.getByLabel('RSA Key', { exact: true }).fill(pem);
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'RSA Key saved successfully');
  await expect(page.getByLabel('RSA Key', { exact: true })).toHaveValue('');
  await expect(info).toContainText('ssh-rsa');
  await page.getByRole('button', { name: 'Delete' }).click();
  await expect(dialog(page)).toContainText('Are you sure you want to delete the RSA Key?');
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();
  await expect(info).toContainText(/Key set\s*Yes/);
  await page.getByRole('button', { name: 'Delete' }).click();
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'RSA Key deleted successfully');
  await expect(info).toContainText(/Key set\s*No/);

  // The first seeded demo server: a new RSA-4096 pair replaces its key, and the test succeeds.
  await page.goto(`/servers/${live._id}/rsa-key`);
  await page.getByLabel('RSA-4096').check();
  await page.getByRole('button', { name: 'Generate key pair' }).click();
  if (live.rsaKeySet) {
    // The seed installs a key: replacing it asks first.
    await expect(dialog(page)).toContainText('A key is already set. Replace it with a new key pair?');
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  }
  await expectToast(page, 'Key pair generated successfully');
  await expect(page.getByLabel('Public key', { exact: true })).toHaveValue(/^ssh-rsa AAAA/);
  await page.goto(`/servers/${live._id}/test-connection`);
  result = await runConnectionTest(page);
  await expect(result).toHaveClass(/alert-success/);
  await expect(result).toContainText('Connection test successfull');
  await expect(dialog(page)).toHaveCount(0);

  // The closed port: give it a key when it has none (else the test stops at "no key"), then the reason shows
  // in a red alert, and no dialog opens.
  if (!closed.rsaKeySet) {
    await page.goto(`/servers/${closed._id}/rsa-key`);
    await page.getByRole('button', { name: 'Generate key pair' }).click();
    await expectToast(page, 'Key pair generated successfully');
  }
  await page.goto(`/servers/${closed._id}/test-connection`);
  result = await runConnectionTest(page);
  await expect(result).toHaveClass(/alert-danger/);
  await expect(result).toContainText(`Connection refused by 127.0.0.1:${closed.sshPort}`);
  await expect(page.locator('.alert-danger')).toHaveCount(1);
  await expect(dialog(page)).toHaveCount(0);

  // The list shows each outcome: Status with the check time, Free space in human units.
  await page.goto('/servers');
  const rowOf = (serverNo: number) =>
    tableRows(page).filter({
      has: page.locator('td:nth-child(2)', { hasText: new RegExp(`^${serverNo}$`) }),
    });
  const liveRow = rowOf(live.serverNo);
  await expect(liveRow.locator('td').nth(5)).toContainText('online');
  await expect(liveRow.getByTestId('server-checked-at')).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  await expect(liveRow.locator('td').nth(6)).toHaveText(HUMAN_BYTES);
  const closedRow = rowOf(closed.serverNo);
  await expect(closedRow.locator('td').nth(5)).toContainText('offline');
  await expect(closedRow.getByTestId('server-checked-at')).toBeVisible();

  await page.getByRole('searchbox', { name: 'Search' }).fill(email);
  await expect(tableRows(page)).toHaveCount(1);
  const mine = tableRows(page).first().locator('td');
  await expect(mine.nth(2)).toHaveText('127.0.0.1');
  await expect(mine.nth(3)).toHaveText('0');
  await expect(mine.nth(4)).toHaveText('25');
  await expect(mine.nth(5)).toContainText('online');
  await expect(mine.nth(6)).toHaveText(HUMAN_BYTES);

  // The host key trusted on first use, cleared after a confirm.
  await page.goto(editUrl);
  await expect(page.getByTestId('host-key-fingerprint')).toHaveText(/^SHA256:/);
  await page.getByRole('button', { name: 'Clear host key' }).click();
  await expect(dialog(page)).toContainText('Are you sure you want to clear the trusted host key?');
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'Host key cleared successfully');
  await expect(page.getByTestId('host-key-fingerprint')).toHaveCount(0);

  await page.getByRole('link', { name: 'Delete Server' }).click();
  await expect(dialog(page)).toContainText('Are you sure you want to delete this server?');
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'Server deleted successfully');
  await expect(page).toHaveURL(/\/servers$/);
  const gone = await request.get(`/api/servers/${id}`, { headers: { Authorization: token } });
  expect(gone.status()).toBe(404);
});
