import type { Page, TestInfo } from '@playwright/test';
import { apiCall, apiCreate, apiToken, expect, signIn, test } from './fixtures.ts';

/**
 * Issue 47, "one name for each thing", words and screens: each screen below at 390 px without sideways
 * overflow (every list is cards on a phone, long words wrap), with screenshots at 1280 and 390 px.
 */

async function noSidewaysOverflow(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
}

/** Screenshots at both widths, and the page no wider than the phone at 390. */
async function atBothWidths(page: Page, info: TestInfo, name: string) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: info.outputPath(`${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await noSidewaysOverflow(page);
  await page.screenshot({ path: info.outputPath(`${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

test("the alerts' Problems are cards on a phone: About, Since and Sent in view", async ({ page }, info) => {
  await signIn(page);
  await page.goto('/alerts');
  const rows = page.getByTestId('alert-row');
  await expect(rows.first()).toBeVisible();
  await atBothWidths(page, info, 'alerts-problems');
  await page.setViewportSize({ width: 390, height: 844 });
  const first = rows.first();
  for (const label of ['About', 'Since', 'Sent']) {
    const cell = first.locator(`td[data-label="${label}"]`);
    const box = (await cell.boundingBox())!;
    expect(box.x + box.width, label).toBeLessThanOrEqual(390);
  }
});

test('a fleet plan is named by its number in its heading and crumbs, and its accounts are cards on a phone', async ({
  page,
  request,
}, info) => {
  const token = await apiToken(request);
  // Domains with a zone: purging their cache is a change, counted per Cloudflare account (nothing is run).
  const list = await apiCall<{ items: { _id: string }[] }>(request, token, 'GET', '/api/domains?page=1&hasZone=true');
  expect(list.items.length).toBeGreaterThan(0);
  const plan = await apiCreate<{ _id: string; planNo: number }>(request, token, 'fleet/plans', {
    selection: { ids: list.items.slice(0, 5).map((d) => d._id) },
    action: { kind: 'purge_cache' },
  });
  await signIn(page);
  await page.goto(`/fleet/${plan._id}`);
  const name = `Fleet plan #${plan.planNo}`;
  await expect(page.getByRole('heading', { name: new RegExp(`^${name}`) })).toBeVisible();
  // The crumb names the plan by its number, never by a piece of its id.
  const crumbs = page.locator('.fd-breadcrumbs');
  await expect(crumbs).toContainText(name);
  await expect(crumbs).not.toContainText(plan._id.slice(0, 8));
  await expect(page.getByRole('table', { name: 'Cloudflare accounts' })).toBeVisible({ timeout: 30_000 });
  await atBothWidths(page, info, 'fleet-plan');
  await page.setViewportSize({ width: 390, height: 844 });
  const left = page.getByRole('table', { name: 'Cloudflare accounts' }).locator('td[data-label="Left"]').first();
  const box = (await left.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);
});

test('an audit entry about a 70-character domain wraps on a phone, and says what changed', async ({
  page,
  request,
}, info) => {
  const token = await apiToken(request);
  const stamp = Date.now().toString(36);
  const long = `${'w'.repeat(63 - stamp.length)}${stamp}.example.com`;
  expect(long.length).toBeGreaterThanOrEqual(70);
  const d = await apiCreate(request, token, 'domains', { domainName: long, status: 'active' });
  await apiCall(request, token, 'PATCH', `/api/domains/${d._id}`, { status: 'inactive' });
  await signIn(page);
  await page.goto(`/audit-log?entityId=${d._id}`);
  const sentences = page.getByTestId('audit-sentence');
  await expect(sentences.first()).toHaveText(`admin changed the status of ${long}`);
  await atBothWidths(page, info, 'audit-long-domain');
});

test('the token list reads as words: its status capitalised and its dates in one format', async ({
  page,
  request,
}, info) => {
  const token = await apiToken(request);
  await apiCall(request, token, 'POST', '/auth/tokens', {
    name: 'words e2e',
    rules: ['cnv:brands'],
    expiresInDays: 365,
  });
  await signIn(page);
  await page.goto('/profile');
  await page.getByRole('tab', { name: 'API tokens' }).click();
  const row = page.locator('tr', { hasText: 'words e2e' }).first();
  await expect(row).toContainText('Active');
  await expect(row).not.toContainText(/\d{4}-\d\d-\d\d \d\d:\d\d/);
  await atBothWidths(page, info, 'profile-tokens');
});

test('a CSV with three bad lines is reported at once, each line by its number, in words', async ({
  page,
  consoleGuard,
}, info) => {
  consoleGuard.allow(/status of 400 \(Bad Request\).*\/api\/launches\/batches/);
  await signIn(page);
  await page.goto('/launches/batches/new');
  const csv = [
    'domainName,server,copyFrom,sslMode',
    'words-ok-one.com,,,',
    'not a name,,,',
    'words-ok-two.com,192.0.2.251,nonexistent-source.com,',
    'words-ok-three.com,,,strictest',
  ].join('\n');
  await page
    .getByLabel('Or a CSV')
    .setInputFiles({ name: 'batch.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Plan' }).click();
  const error = page.getByTestId('csv-error');
  await expect(error).toContainText('3 lines are wrong:');
  await expect(error).toContainText('Line 3: not a name is not a valid host name');
  await expect(error).toContainText(
    'Line 4: no server has the IP address 192.0.2.251; no console domain nonexistent-source.com to copy the content from',
  );
  await expect(error).toContainText('Line 5: SSL mode strictest is not one of off, flexible, full, strict');
  await expect(error).not.toContainText('copyFrom');
  await atBothWidths(page, info, 'batch-csv-errors');
});
