import type { Page } from '@playwright/test';
import type { DashboardTraffic, DomainTraffic } from '@fleetdesk/contract';
import { apiCreate, apiToken, expect, signIn, test } from './fixtures.ts';

/**
 * Traffic, as pictures (issue 47): the domain page's Traffic tab draws the days the API kept from the Cloudflare
 * simulator's GraphQL Analytics, at desktop and phone widths; the chart library is fetched only by that tab.
 */
const CHARTS = ['requests', 'page-views', 'visits', 'bandwidth', 'threats', 'status'] as const;
const n = (v: number) => v.toLocaleString('en-US');
const UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];
/** "1.23 GB" back to bytes (decimal units, as network traffic is counted). */
const bytesOf = (text: string) => {
  const [, figure, unit] = /^(\d+(?:\.\d+)?) (B|kB|MB|GB|TB)$/.exec(text) ?? [];
  expect(figure, `"${text}" is a figure and a unit`).toBeTruthy();
  return Number(figure) * 1000 ** UNITS.indexOf(unit!);
};

async function demoDomain(request: Parameters<typeof apiToken>[0]) {
  const token = await apiToken(request);
  const headers = { Authorization: token };
  const found = await request.get('/api/domains?search=fleetdesk-demo.com', { headers });
  const domain = ((await found.json()) as { data: { items: { _id: string; domainName: string }[] } }).data.items.find(
    (d) => d.domainName === 'fleetdesk-demo.com',
  );
  expect(domain, 'the demo domain').toBeTruthy();
  const traffic = async (range: '7d' | '30d') => {
    const res = await request.get(`/api/domains/${domain!._id}/traffic?range=${range}`, { headers });
    expect(res.status(), await res.text()).toBe(200);
    return ((await res.json()) as { data: DomainTraffic }).data;
  };
  return { id: domain!._id, token, traffic };
}

/**
 * Pixels of the chart's canvas in a series' colour: its lines and fills are saturated colours, while the grid, the
 * axes and their labels are grey, so an empty chart has none. (A count of every drawn pixel was too close to the
 * grid's own for the status chart, whose four lines have no fill.)
 */
const drawnPixels = (page: Page, key: string) =>
  page
    .getByTestId(`traffic-chart-${key}`)
    .locator('canvas')
    .evaluate((c: HTMLCanvasElement) => {
      const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let drawn = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
        if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 50) drawn++;
      }
      return { drawn, total: c.width * c.height };
    });

async function expectCharts(page: Page, t: DomainTraffic) {
  for (const key of CHARTS) await expect(page.getByTestId(`traffic-chart-${key}`).locator('canvas')).toBeVisible();
  await expect(page.getByTestId('traffic-chart-requests').getByTestId('traffic-total')).toHaveText(
    n(t.totals.requests),
  );
  await expect(page.getByTestId('traffic-chart-page-views').getByTestId('traffic-total')).toHaveText(
    n(t.totals.pageViews),
  );
  await expect(page.getByTestId('traffic-chart-visits').getByTestId('traffic-total')).toHaveText(n(t.totals.visits));
  // Bandwidth in bytes with a readable unit, to three significant digits of the kept total.
  expect(t.totals.bytes).toBeGreaterThan(0);
  const bandwidth = (await page.getByTestId('traffic-chart-bandwidth').getByTestId('traffic-total').textContent())!;
  expect(Math.abs(bytesOf(bandwidth) - t.totals.bytes) / t.totals.bytes, bandwidth).toBeLessThanOrEqual(0.005);
  await expect(page.getByTestId('traffic-chart-threats').getByTestId('traffic-total')).toHaveText(n(t.totals.threats));
  await expect(page.getByTestId('traffic-chart-status').getByTestId('traffic-total')).toHaveText(
    `${n(t.totals.status.s4xx + t.totals.status.s5xx)} errors`,
  );
  await expect(page.getByText(`${t.days.length} days, ${t.since} to ${t.until}`)).toBeVisible();
  for (const key of CHARTS) {
    const { drawn, total } = await drawnPixels(page, key);
    expect(drawn, `${key} is drawn`).toBeGreaterThan(total * 0.01);
  }
}

for (const width of [1280, 390]) {
  test(`the domain page draws the last 7 and 30 days of the simulator's series at ${width} px`, async ({
    page: first,
    context,
    request,
  }) => {
    const { id, traffic } = await demoDomain(request);
    // Signing in lands on the dashboard, which draws too: the domain page is then opened as a first visit.
    await signIn(first);
    await first.close();
    const page = await context.newPage();
    await page.setViewportSize({ width, height: 900 });
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('.js')) scripts.push(new URL(r.url()).pathname);
    });
    await page.goto(`/domains/${id}`);
    await expect(page.getByRole('tab', { name: 'Traffic' })).toBeVisible();
    // The chart library is not fetched until a screen draws.
    expect(scripts.filter((s) => /\/charts-/.test(s))).toEqual([]);

    await page.getByRole('tab', { name: 'Traffic' }).click();
    const week = await traffic('7d');
    expect(week.state).toBe('ok');
    expect(week.days).toHaveLength(7);
    expect(week.totals.requests).toBeGreaterThan(0);
    await expectCharts(page, week);
    expect(scripts.filter((s) => /\/charts-/.test(s))).toHaveLength(1);
    // A read-only tab has no Save.
    await expect(page.getByRole('button', { name: 'Save' })).toHaveCount(0);

    await page.getByRole('button', { name: 'Last 30 days' }).click();
    const month = await traffic('30d');
    expect(month.days).toHaveLength(30);
    await expectCharts(page, month);

    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}

test('a domain without a Cloudflare zone says so instead of drawing', async ({ page, request }) => {
  const token = await apiToken(request);
  const domain = await apiCreate(request, token, 'domains', {
    domainName: `no-zone-${Date.now().toString(36)}.example`,
    status: 'active',
  });
  await signIn(page);
  await page.goto(`/domains/${domain._id}?tab=traffic`);
  await expect(page.getByTestId('traffic-empty')).toHaveText(/This domain has no Cloudflare zone/);
  await expect(page.locator('[data-testid^="traffic-chart-"]')).toHaveCount(0);
});

test("the dashboard shows the fleet's traffic and links the domain whose traffic fell to its Traffic tab", async ({
  page,
  request,
}) => {
  const token = await apiToken(request);
  type Dash = { data: { traffic: DashboardTraffic } };
  // The periodic read takes the demo's zones soon after start; wait for it rather than reading them here.
  let traffic: DashboardTraffic | undefined;
  await expect
    .poll(
      async () => {
        const res = await request.get('/api/dashboard', { headers: { Authorization: token } });
        traffic = ((await res.json()) as Dash).data.traffic;
        return traffic.falls.some((f) => f.domainName === 'fleetdesk-demo.net');
      },
      { timeout: 60_000 },
    )
    .toBe(true);

  await signIn(page);
  const panel = page.getByTestId('fleet-traffic');
  await expect(panel.locator('canvas')).toBeVisible();
  await expect(page.getByTestId('fleet-traffic-week')).toContainText(
    `${n(traffic!.week.requests)} requests in the last 7 days`,
  );
  const fell = traffic!.falls.find((f) => f.domainName === 'fleetdesk-demo.net')!;
  expect(fell.change).toBeLessThanOrEqual(-30);
  const row = page.getByTestId('traffic-falls').locator('li').filter({ hasText: 'fleetdesk-demo.net' });
  await expect(row).toContainText(`−${Math.abs(fell.change)} %`);
  await row.getByRole('link', { name: 'fleetdesk-demo.net' }).click();
  await expect(page).toHaveURL(new RegExp(`/domains/${fell._id}\\?tab=traffic`));
  await expect(page.getByTestId('traffic-chart-requests').locator('canvas')).toBeVisible();
});

test('a zone still pending at Cloudflare has no traffic, and the tab says so', async ({ page, request }) => {
  const token = await apiToken(request);
  const headers = { Authorization: token };
  const clouds = await request.get('/api/clouds?search=ops@fleetdesk-demo.com', { headers });
  const cloud = ((await clouds.json()) as { data: { items: { _id: string; email: string }[] } }).data.items.find(
    (c) => c.email === 'ops@fleetdesk-demo.com',
  );
  expect(cloud, 'the demo cloud').toBeTruthy();
  // The demo leaves this account's third zone, still pending, for a domain to link.
  const domain = await apiCreate(request, token, 'domains', {
    domainName: 'fleetdesk-demo.org',
    status: 'active',
    cloudId: cloud!._id,
  });
  const zones = await request.get(`/api/domains/${domain._id}/cloud-flare/zones?search=fleetdesk-demo.org`, {
    headers,
  });
  const zone = (
    (await zones.json()) as { data: { items: { id: string; name: string; status: string }[] } }
  ).data.items.find((z) => z.name === 'fleetdesk-demo.org');
  expect(zone?.status).toBe('pending');
  const linked = await request.put(`/api/domains/${domain._id}/cloud-flare/link-zone`, {
    headers,
    data: { cloudZoneId: zone!.id },
  });
  expect(linked.status(), await linked.text()).toBe(200);

  await signIn(page);
  await page.goto(`/domains/${domain._id}?tab=traffic`);
  await expect(page.getByTestId('traffic-empty')).toHaveText(
    /Cloudflare counted no requests to this zone in the last 7 days/,
  );
  await expect(page.locator('[data-testid^="traffic-chart-"]')).toHaveCount(0);
  await page.getByRole('button', { name: 'Last 30 days' }).click();
  await expect(page.getByTestId('traffic-empty')).toHaveText(/in the last 30 days/);
});
