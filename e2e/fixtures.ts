import { test as base, expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';

export { expect };

export interface ConsoleGuard {
  /** Lets a test expect a console error (e.g. the browser's log of a 409 it provokes). */
  allow(pattern: RegExp): void;
}

/** Every test fails on a console error or an uncaught page error it did not announce. */
export const test = base.extend<{ consoleGuard: ConsoleGuard }>({
  consoleGuard: [
    async ({ page }, use) => {
      const errors: string[] = [];
      const allowed: RegExp[] = [];
      page.on('console', (message) => {
        if (message.type() !== 'error') return;
        const where = message.location().url;
        errors.push(`console error: ${message.text()}${where ? ` (${where})` : ''}`);
      });
      page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
      await use({ allow: (pattern) => allowed.push(pattern) });
      const unexpected = errors.filter((error) => !allowed.some((pattern) => pattern.test(error)));
      expect(unexpected, 'unexpected console errors').toEqual([]);
    },
    { auto: true },
  ],
});

export const ADMIN = { username: 'admin', password: 'admin' };

export async function signIn(page: Page, user = ADMIN) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { name: 'Starting Page' })).toBeVisible();
}

/** A token for setting up data through the API. */
export async function apiToken(request: APIRequestContext, user = ADMIN): Promise<string> {
  const response = await request.post('/auth/login', { data: user });
  expect(response.status()).toBe(200);
  const token = response.headers()['authorization'];
  expect(token).toMatch(/^Bearer /);
  return token!;
}

export async function apiCreate<T = { _id: string }>(
  request: APIRequestContext,
  token: string,
  resource: string,
  data: object,
): Promise<T> {
  const response = await request.post(`/api/${resource}`, { data, headers: { Authorization: token } });
  expect(response.status(), await response.text()).toBe(201);
  return ((await response.json()) as { data: T }).data;
}

/** One API call that must succeed (its body is the failure's message); answers the envelope's `data`. */
export async function apiCall<T>(
  request: APIRequestContext,
  token: string,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  data?: object,
): Promise<T> {
  const response = await request.fetch(path, { method, data, headers: { Authorization: token } });
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { data: T }).data;
}

export async function apiDelete(request: APIRequestContext, token: string, resource: string, id: string) {
  const response = await request.delete(`/api/${resource}/${id}`, { headers: { Authorization: token } });
  expect(response.ok(), await response.text()).toBe(true);
}

/** The demo's first Cloudflare account's cloud. */
export const DEMO_CLOUD = 'ops@fleetdesk-demo.com';

/** The id of the demo's first Cloudflare account's cloud. */
export async function demoCloudId(request: APIRequestContext, token: string): Promise<string> {
  const clouds = await apiCall<{ items: { _id: string; email: string }[] }>(
    request,
    token,
    'GET',
    `/api/clouds?search=${encodeURIComponent(DEMO_CLOUD)}`,
  );
  const cloud = clouds.items.find((c) => c.email === DEMO_CLOUD);
  expect(cloud, 'the demo cloud').toBeTruthy();
  return cloud!._id;
}

/** A new domain of the demo cloud (a unique `<prefix>-….com`), with its zone created unless `zone: false`. */
export async function demoCloudDomain(
  request: APIRequestContext,
  token: string,
  prefix: string,
  o: { zone?: boolean } = {},
): Promise<{ _id: string; domainName: string }> {
  const cloudId = await demoCloudId(request, token);
  const domainName = `${uniqueName(prefix).replace(/\s+/g, '-').toLowerCase()}.com`;
  const domain = await apiCreate(request, token, 'domains', { domainName, status: 'active', cloudId });
  if (o.zone !== false) await apiCall(request, token, 'POST', `/api/domains/${domain._id}/cloud-flare/create-zone`);
  return { _id: domain._id, domainName };
}

/** A name no other test run has used. */
export function uniqueName(prefix: string): string {
  return `${prefix} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export function toast(page: Page, text: string): Locator {
  return page.locator('.toast').filter({ hasText: text });
}

/** A success toast with its title, then closed so later checks see only new ones. */
export async function expectToast(page: Page, text: string) {
  const item = toast(page, text);
  await expect(item).toBeVisible();
  await expect(item.locator('.toast-header')).toHaveText('Success');
  await item.getByRole('button', { name: 'Close' }).click();
  await expect(item).toBeHidden();
}

export function dialog(page: Page): Locator {
  return page.getByRole('dialog');
}

/** The rows of the list table (not the header). */
export function tableRows(page: Page | Locator): Locator {
  // uPlot draws a chart's legend as a table (the Jobs screen's chart sits above its list): not a list's rows.
  return page.locator('table:not(.u-legend) tbody tr');
}
