import type { APIRequestContext } from '@playwright/test';
import { apiToken, expect, signIn, test } from './fixtures.ts';

async function all<T>(request: APIRequestContext, token: string, resource: string): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; page <= 100; page++) {
    const res = await request.get(`/api/${resource}?page=${page}`, { headers: { Authorization: token } });
    expect(res.status()).toBe(200);
    const { data } = (await res.json()) as { data: { items: T[]; itemsCount: number } };
    items.push(...data.items);
    if (!data.items.length || items.length >= data.itemsCount) break;
  }
  return items;
}

const dayPlus = (n: number) => {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + n)).toISOString().slice(0, 10);
};

test('the starting page shows the fleet’s figures, each linking to its list', async ({ page, request }) => {
  const token = await apiToken(request);
  type D = { status: string; domainRegistratorExpirationDate: string | null };
  const domains = await all<D>(request, token, 'domains');
  const servers = await all<{ status: string }>(request, token, 'servers');
  const proxies = await all<{ checkStatus: string | null }>(request, token, 'proxies');
  const clouds = await all<unknown>(request, token, 'clouds');
  const today = dayPlus(0);
  const until = dayPlus(30);
  const exp = (d: D) => d.domainRegistratorExpirationDate;
  const expected = {
    'figure-domains': domains.length,
    'figure-active': domains.filter((d) => d.status === 'active').length,
    'figure-inactive': domains.filter((d) => d.status === 'inactive').length,
    'figure-expiring': domains.filter((d) => exp(d) && exp(d)! >= today && exp(d)! <= until).length,
    'figure-expired': domains.filter((d) => exp(d) && exp(d)! < today).length,
    'figure-servers-online': servers.filter((s) => s.status === 'online').length,
    'figure-servers-offline': servers.filter((s) => s.status === 'offline').length,
    'figure-proxies-failing': proxies.filter((p) => p.checkStatus === 'error').length,
    'figure-clouds': clouds.length,
  };
  // The demo has something to show in each.
  expect(expected['figure-domains']).toBeGreaterThan(0);
  expect(expected['figure-expiring'], 'the demo has domains expiring within 30 days').toBeGreaterThan(0);

  await signIn(page);
  for (const [testId, value] of Object.entries(expected)) {
    await expect(page.getByTestId(testId).locator('.fd-figure-value'), testId).toHaveText(
      value.toLocaleString('en-US'),
    );
  }
  await expect(page.getByTestId('expiring-list').locator('li')).toHaveCount(Math.min(8, expected['figure-expiring']));
  await expect(page.getByTestId('changes-list').locator('li').first()).toBeVisible();
  // The sections stay linked from the starting page.
  await expect(page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Domains' })).toBeVisible();

  await page.getByTestId('figure-inactive').click();
  await expect(page).toHaveURL(/\/domains\?status=inactive$/);
  await expect(page.getByRole('heading', { name: 'Domains' })).toBeVisible();
  await page.goBack();
  await page.getByTestId('figure-expiring').click();
  await expect(page).toHaveURL(new RegExp(`/domains\\?expiresFrom=${today}&expiresBefore=${dayPlus(31)}$`));
  await page.goBack();
  // Every figure opens a list with exactly that many rows.
  for (const [testId, value] of Object.entries(expected)) {
    await page.getByTestId(testId).click();
    await expect(page.getByText(/^Total: \d+$/), testId).toHaveText(`Total: ${value}`);
    await page.goBack();
  }
  await page.getByTestId('expiring-list').getByRole('link').first().click();
  await expect(page).toHaveURL(/\/domains\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'Edit Domain' })).toBeVisible();
  // Breadcrumbs and the title name the domain.
  const crumbs = page.getByRole('navigation', { name: 'breadcrumb' });
  await expect(crumbs.getByRole('link', { name: 'Domains' })).toHaveAttribute('href', '/domains');
  await expect(page).toHaveTitle(/^[^·]+ · Domains · Fleetdesk$/);
  await expect(page).not.toHaveTitle(/#[0-9a-f]{8}/);
});

test('the command palette finds items across areas and jumps to screens and actions', async ({ page, request }) => {
  const token = await apiToken(request);
  const search = await request.get('/api/search?q=fleetdesk-demo.com', { headers: { Authorization: token } });
  const hits = ((await search.json()) as { data: { hits: { area: string; _id: string; title: string }[] } }).data.hits;
  const domain = hits.find((h) => h.area === 'domains' && h.title === 'fleetdesk-demo.com')!;
  expect(domain).toBeTruthy();

  await signIn(page);
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Search and jump' });
  await expect(palette).toBeVisible();
  const box = palette.getByRole('combobox');
  await expect(box).toBeFocused();
  await box.fill('fleetdesk-demo.com');
  const options = palette.getByRole('option');
  await expect(options.filter({ hasText: /^fleetdesk-demo\.com/ })).toHaveCount(1);
  // The cloud account matched by its email, in its own group.
  await expect(palette.getByText('Clouds', { exact: true })).toBeVisible();
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await box.press('Enter');
  await expect(page).toHaveURL(`/domains/${domain._id}`);
  await expect(palette).toBeHidden();

  // An action on a domain, from the header's Search button.
  await page.getByRole('button', { name: 'Search' }).click();
  await box.fill('purge cache fleetdesk-demo.com');
  await expect(options.first()).toHaveText('Purge Cache for fleetdesk-demo.com');
  await options.first().click();
  await expect(page).toHaveURL(`/domains/${domain._id}/cloud-flare/purge-cache`);
  await expect(page.getByRole('navigation', { name: 'breadcrumb' })).toContainText('Purge Cache');
  // The action's page asks to confirm as soon as the domain has loaded: decline it before opening the palette
  // again, or the confirm opens over the palette and takes the keyboard.
  const confirm = page.getByRole('dialog').filter({ hasText: 'Are you sure you want to purge' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();

  // A bare action word lists the action and waits for the domain.
  await page.keyboard.press('Control+k');
  await box.fill('sitemap');
  await expect(options).toHaveText(['Generate Sitemap…then type the domain']);
  await options.first().click();
  await expect(box).toHaveValue('Generate Sitemap ');
  await expect(box).toBeFocused();
  await box.pressSequentially('fleetdesk-demo.com');
  await expect(options.first()).toHaveText('Generate Sitemap for fleetdesk-demo.com');
  await box.press('Escape');
  await expect(palette).toBeHidden();

  // A screen, by keyboard.
  await page.keyboard.press('Control+k');
  await box.fill('region');
  await expect(options).toHaveText(['Regions', 'Create Region']);
  await box.press('ArrowDown');
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
  await box.press('ArrowUp');
  await box.press('Enter');
  await expect(page).toHaveURL('/regions');
});

test('the DNS editor works on a phone: each record a card, edited, saved through the summary', async ({
  page,
  request,
}) => {
  const token = await apiToken(request);
  // The second demo account's zone-linked domain (the Cloudflare spec works on its own zone).
  const res = await request.get('/api/search?q=bluefin-demo', { headers: { Authorization: token } });
  const hits = ((await res.json()) as { data: { hits: { area: string; _id: string; title: string }[] } }).data.hits;
  const domain = hits.find((h) => h.area === 'domains')!;
  expect(domain, 'a zone-linked demo domain').toBeTruthy();

  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page);
  await page.goto(`/domains/${domain._id}/cloud-flare/update-dns`);
  const rows = page.getByTestId('dns-row');
  await expect(rows.first()).toBeVisible();
  const first = rows.first();
  // Every field of a record is usable: wide enough to show its value.
  for (const name of ['Type', 'Name', 'Content', 'Proxied', 'TTL']) {
    const box = await first.getByLabel(name, { exact: true }).boundingBox();
    expect(box!.width, name).toBeGreaterThan(200);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  const ttl = first.getByLabel('TTL', { exact: true });
  const next = (await ttl.inputValue()) === '7200' ? '3600' : '7200';
  await ttl.fill(next);
  await expect(page.getByTestId('dns-pending')).toContainText('1 changed');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const summary = page.getByTestId('dns-summary');
  await expect(summary.getByTestId('dns-summary-changed')).toContainText(`TTL`);
  await expect(summary.getByTestId('dns-summary-changed')).toContainText(`→ ${next}`);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByTestId('dns-pending')).toHaveCount(0);
  await expect(rows.first().getByLabel('TTL', { exact: true })).toHaveValue(next);
});
