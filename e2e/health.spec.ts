import type { Page } from '@playwright/test';
import { apiCreate, apiToken, dialog, expect, signIn, tableRows, test, uniqueName } from './fixtures.ts';

/**
 * Fleet health in the browser: the demo's fleetdesk-demo.com had TLS 1.3 turned on through the console,
 * then turned off in the Cloudflare simulator behind the console's back. Filter the domains list to
 * failing, open the domain, read observed and expected on its Health tab, Fix, and see the check turn OK.
 */
test('filter to failing, open one, read observed and expected, Fix, see it OK', async ({ page, request }) => {
  const token = await apiToken(request);
  const headers = { Authorization: token };
  const found = await request.get('/api/domains?search=fleetdesk-demo.com', { headers });
  const domain = ((await found.json()) as { data: { items: { _id: string; domainName: string }[] } }).data.items.find(
    (d) => d.domainName === 'fleetdesk-demo.com',
  );
  expect(domain, 'the demo domain').toBeTruthy();
  // The periodic run checks it soon after start; checking it now keeps the test from waiting for that run.
  const checked = await request.post(`/api/domains/${domain!._id}/health/check`, { headers });
  expect(checked.status(), await checked.text()).toBe(200);

  await signIn(page);
  await page.goto('/domains');
  await page.getByLabel('Health', { exact: true }).selectOption('failing');
  await expect(page).toHaveURL(/health=failing/);
  // The demo has a handful of failing domains, each for its own reason; the search narrows them to this one.
  await page.getByRole('searchbox', { name: 'Search' }).fill('fleetdesk-demo.com');
  // The search reaches the address after a pause in typing: wait for it, or its late update could replace the
  // domain's page (still loading its chunk) with the list again.
  await expect(page).toHaveURL(/search=fleetdesk-demo\.com/);
  const link = page.getByRole('link', { name: 'fleetdesk-demo.com', exact: true });
  await expect(link).toBeVisible();
  const row = page.getByRole('row').filter({ has: link });
  const badge = row.locator('[data-health="failing"]');
  await expect(badge).toBeVisible();
  // Each number for what it is ("2 failing · 1 unknown"), never one sum ("Failing · 3").
  await expect(badge).toHaveText(/^\d+ failing( · \d+ warning)?( · \d+ unknown)?$/);
  const numbers = (await badge.textContent())!;
  await link.click();

  await page.getByRole('tab', { name: 'Health' }).click();
  // A tab that edits nothing has neither the form's title nor its Save.
  await expect(page.getByRole('heading', { name: 'Domain Health' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toHaveCount(0);
  // The list says what the domain's Health tab says.
  await expect(page.getByTestId('health-problem-summary')).toHaveText(numbers);
  const tls = page.getByTestId('health-cf_tls13');
  await expect(tls).toHaveAttribute('data-state', 'failing');
  await expect(tls.getByTestId('observed')).toHaveText('off');
  await expect(tls.getByTestId('expected')).toHaveText('on');
  await tls.getByRole('button', { name: 'Fix', exact: true }).click();
  await expect(tls).toHaveAttribute('data-state', 'ok');
  await expect(tls.getByTestId('observed')).toHaveText('on');
  await expect(page.getByText(/TLS 1\.3 is now OK/)).toBeVisible();
});

/**
 * "Fix all" for a check other than WAF: the demo's bluefin-demo.net (another account) had its SSL mode set to Full
 * through the console, then changed to Flexible at Cloudflare behind the console's back. From the dashboard's
 * panel, Fix all plans the fix over the failing domains, each to its own expected value; run, the check is OK again.
 */
test('Fix all SSL mode from the dashboard: planned per domain, run, the check OK', async ({ page, request }) => {
  const token = await apiToken(request);
  const headers = { Authorization: token };
  const found = await request.get('/api/domains?search=bluefin-demo.net', { headers });
  const domain = ((await found.json()) as { data: { items: { _id: string; domainName: string }[] } }).data.items.find(
    (d) => d.domainName === 'bluefin-demo.net',
  );
  expect(domain, 'the demo domain').toBeTruthy();
  const checked = await request.post(`/api/domains/${domain!._id}/health/check`, { headers });
  expect(checked.status(), await checked.text()).toBe(200);

  await signIn(page);
  await page.goto('/');
  const row = page.getByTestId('health-check-cf_ssl');
  // The count links to the list filtered to exactly those domains.
  await expect(row.getByTestId('health-count-cf_ssl-failing')).toHaveAttribute(
    'href',
    '/domains?check=cf_ssl&checkState=failing',
  );
  await row.getByRole('button', { name: 'Fix all: Cloudflare: SSL mode' }).click();

  await expect(page.getByRole('heading', { name: /^Fleet plan #\d+/ })).toBeVisible();
  await expect(page.getByText('Planned', { exact: true })).toBeVisible({ timeout: 30_000 });
  const planRow = tableRows(page.getByRole('region', { name: 'Domains of the plan' })).filter({
    hasText: 'bluefin-demo.net',
  });
  await expect(planRow).toContainText('Will change');
  await expect(planRow).toContainText(/flexible/i);
  await expect(planRow).toContainText(/full/i);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await dialog(page).getByRole('button', { name: 'Run' }).click();
  await expect(page.getByText('Completed', { exact: true })).toBeVisible({ timeout: 60_000 });

  const health = await request.get(`/api/domains/${domain!._id}/health`, { headers });
  const ssl = ((await health.json()) as { data: { checks: { check: string; state: string }[] } }).data.checks.find(
    (c) => c.check === 'cf_ssl',
  );
  expect(ssl?.state).toBe('ok');
});

/**
 * What a toast covers on the domains list, after scrolling to the page's end when `toEnd`: the rows (cards on a
 * phone) and the pager under any toast shown. Measured in one step, within a toast's 5 seconds.
 */
const coveredByToasts = (page: Page, toEnd: boolean) =>
  page.evaluate((end) => {
    if (end) window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' });
    const toasts = [...document.querySelectorAll('.toast')]
      .map((t) => t.getBoundingClientRect())
      .filter((r) => r.height > 0);
    const parts = [...document.querySelectorAll('main table:not(.u-legend) tbody tr, main nav[aria-label="Pages"]')];
    const hit = (a: DOMRect, b: DOMRect) =>
      a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const covered = parts
      .filter((p) => toasts.some((t) => hit(p.getBoundingClientRect(), t)))
      .map((p) => (p.textContent ?? '').trim().slice(0, 60));
    return { toasts: toasts.length, parts: parts.length, covered };
  }, toEnd);

/** Presses a header action; below 768 px the header's actions are folded into its Actions menu. */
async function pressAction(page: Page, name: string) {
  const toggle = page.getByRole('button', { name: 'Actions', exact: true });
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await page.getByRole('button', { name, exact: true }).click();
}

/**
 * The domains list's Check health shows its result in the page above the table, never as a toast over the rows; and
 * a toast that is shown (a domain deleted) leaves room under the list, so its last rows scroll clear of it (issue 47).
 */
for (const width of [1280, 390]) {
  test(`Check health answers above the list, and no toast covers the list's rows at ${width} px`, async ({
    page,
    request,
  }) => {
    const token = await apiToken(request);
    const gone = await apiCreate(request, token, 'domains', {
      domainName: `${uniqueName('toast').replace(/\s+/g, '-').toLowerCase()}.example`,
      status: 'active',
    });
    await signIn(page);
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/domains');
    const rows = tableRows(page);
    await expect(rows).toHaveCount(20);

    for (const i of [0, 1]) await rows.nth(i).getByRole('checkbox').check();
    await pressAction(page, 'Check health (2)');
    const result = page.getByTestId('check-health-result');
    await expect(result).toHaveText(/^Checking the health of 2 domains: job #\d+$/);
    const jobLink = result.getByRole('link', { name: /^job #\d+$/ });
    await expect(jobLink).toHaveAttribute('href', /^\/jobs\?id=[0-9a-f-]{36}$/);
    // In the page, above the table, and no toast at all.
    const resultBox = (await result.boundingBox())!;
    const tableTop = (await page.locator('main table.fd-list-table').boundingBox())!.y;
    expect(resultBox.y + resultBox.height).toBeLessThanOrEqual(tableTop);
    expect(await result.evaluate((el) => getComputedStyle(el).position)).not.toBe('fixed');
    await expect(page.locator('.toast')).toHaveCount(0);
    for (const toEnd of [false, true]) expect((await coveredByToasts(page, toEnd)).covered).toEqual([]);

    // Its job link opens that job alone on the Jobs screen; a result dismissed goes.
    const jobNo = (await jobLink.textContent())!.replace('job #', '');
    await jobLink.click();
    await expect(page).toHaveURL(/\/jobs\?id=/);
    await expect(tableRows(page)).toHaveCount(1);
    await expect(tableRows(page).locator('td[data-label="№"]')).toHaveText(jobNo);
    await expect(tableRows(page)).toContainText('Health check now');
    await page.goBack();
    await expect(rows).toHaveCount(20);
    await rows.nth(0).getByRole('checkbox').check();
    await pressAction(page, 'Check health (1)');
    await expect(result).toHaveText(/^Checking the health of 1 domain: job #\d+$/);
    await result.getByRole('button', { name: 'Close' }).click();
    await expect(result).toHaveCount(0);

    // A toast over the list: the page ends below the toasts, so scrolled to its end nothing of the list is under one.
    await page.goto(`/domains/${gone._id}/delete`);
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await expect(page).toHaveURL(/\/domains$/);
    await expect(page.locator('.toast').filter({ hasText: 'Domain deleted successfully' })).toBeVisible();
    await expect(rows).toHaveCount(20);
    const atEnd = await coveredByToasts(page, true);
    expect(atEnd.toasts, 'the toast is still shown').toBeGreaterThan(0);
    expect(atEnd.parts).toBe(21);
    expect(atEnd.covered).toEqual([]);
    // Once the toasts have gone, so has the room kept for them.
    await expect(page.locator('.toast')).toHaveCount(0, { timeout: 15_000 });
    expect(await page.evaluate(() => document.documentElement.style.getPropertyValue('--fd-toast-room'))).toBe('');
  });
}
