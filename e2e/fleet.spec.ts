import type { APIRequestContext } from '@playwright/test';
import { apiCreate, apiToken, dialog, expect, signIn, tableRows, test, uniqueName } from './fixtures.ts';

/**
 * Fleet operations in the browser: filter the domains list by brand, select all matching, plan an SSL change,
 * read the plan, run it, watch the progress, and see the new SSL mode on a domain's page. The domains are new
 * ones of the demo cloud, each with its own zone in the demo's Cloudflare simulator.
 */
const DEMO_CLOUD = 'ops@fleetdesk-demo.com';

async function setUp(request: APIRequestContext) {
  const token = await apiToken(request);
  const headers = { Authorization: token };
  const clouds = await request.get(`/api/clouds?search=${encodeURIComponent(DEMO_CLOUD)}`, { headers });
  const cloud = ((await clouds.json()) as { data: { items: { _id: string; email: string }[] } }).data.items.find(
    (c) => c.email === DEMO_CLOUD,
  );
  expect(cloud, 'the demo cloud').toBeTruthy();
  const tag = uniqueName('fleet').replace(/\s+/g, '-').toLowerCase();
  const brand = await apiCreate(request, token, 'brands', { name: `Brand ${tag}` });
  const domains: { _id: string; name: string }[] = [];
  for (let i = 0; i < 3; i++) {
    const name = `${tag}-${i}.com`;
    const d = await apiCreate(request, token, 'domains', {
      domainName: name,
      status: 'active',
      cloudId: cloud!._id,
      brandId: brand._id,
    });
    const zone = await request.post(`/api/domains/${d._id}/cloud-flare/create-zone`, { headers });
    expect(zone.ok(), await zone.text()).toBe(true);
    domains.push({ _id: d._id, name });
  }
  return { brandName: `Brand ${tag}`, brandId: brand._id, domains };
}

test('filter by brand, select all matching, plan an SSL change, run it and see it on a domain', async ({
  page,
  request,
}) => {
  const s = await setUp(request);
  await signIn(page);
  await page.goto('/domains');

  // The brand filter, kept in the URL.
  await page.getByTestId('filter-brands').getByRole('button', { name: 'Select' }).click();
  const picker = page.getByRole('dialog', { name: 'Select a brand' });
  await picker.getByRole('searchbox', { name: 'Search' }).fill(s.brandName);
  await expect(tableRows(picker)).toHaveCount(1);
  await tableRows(picker).first().click();
  await expect(picker).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`brandId=${s.brandId}`));
  await expect(page.getByText('Total: 3')).toBeVisible();
  await expect(page.getByTestId('filter-brands').getByRole('textbox')).toHaveValue(s.brandName);

  // Select all matching (the filter is what the plan gets, not the ids).
  await page.getByRole('button', { name: 'Select all 3 matching' }).click();
  await expect(page.getByText('All 3 matching domains are selected.')).toBeVisible();
  for (const d of s.domains) await expect(page.getByRole('checkbox', { name: `Select ${d.name}` })).toBeChecked();
  await page.getByRole('button', { name: 'Plan a fleet change (3)' }).click();

  await expect(page.getByRole('heading', { name: 'Plan a fleet change' })).toBeVisible();
  await expect(page.getByText('3 domains selected: all domains matching the list’s filters.')).toBeVisible();
  await page.getByLabel('Action').selectOption({ label: 'Set the SSL mode' });
  await page.getByLabel('SSL mode').selectOption({ label: 'Full strict' });
  await page.getByRole('button', { name: 'Plan', exact: true }).click();

  // The plan: counts and the table of changes.
  await expect(page.getByRole('heading', { name: /^Fleet plan #\d+/ })).toBeVisible();
  await expect(page.getByText('Planned', { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByLabel('Will change: 3')).toBeVisible();
  await expect(page.getByLabel('Cannot change: 0')).toBeVisible();
  const rows = tableRows(page.getByRole('region', { name: 'Domains of the plan' }));
  await expect(rows).toHaveCount(3);
  for (const d of s.domains) {
    const row = rows.filter({ hasText: d.name });
    await expect(row).toContainText('Will change');
    await expect(row).toContainText('Off');
    await expect(row).toContainText('Full strict');
  }

  // Run it and watch the progress until it is done.
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await dialog(page).getByRole('button', { name: 'Run' }).click();
  await expect(
    page.getByRole('progressbar', { name: 'Run progress' }).or(page.getByLabel('Run progress')),
  ).toBeVisible();
  await expect(page.getByText('Completed', { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('run-text')).toHaveText('3 of 3 domains changed');
  // Progress per Cloudflare account.
  await expect(page.getByLabel(`Progress of ${DEMO_CLOUD}`).getByRole('progressbar')).toHaveAttribute(
    'aria-valuenow',
    '100',
  );

  // The new SSL mode, read back from Cloudflare on a domain's page.
  await rows.filter({ hasText: s.domains[0]!.name }).getByRole('link', { name: s.domains[0]!.name }).click();
  await page.goto(`/domains/${s.domains[0]!._id}/cloud-flare/update-ssl-settings`);
  await expect(page.getByRole('radio', { name: /^Full strict/ })).toBeChecked();
});

test('Revert this run: the revert is planned from the page of the run, shown, run, and the domains are back', async ({
  page,
  request,
}) => {
  const s = await setUp(request);
  const headers = { Authorization: await apiToken(request) };
  const created = await request.post('/api/fleet/plans', {
    headers,
    data: { selection: { ids: s.domains.map((d) => d._id) }, action: { kind: 'ssl', value: 'strict' } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { _id: id, planNo } = ((await created.json()) as { data: { _id: string; planNo: number } }).data;
  await expect
    .poll(
      async () =>
        ((await (await request.get(`/api/fleet/plans/${id}`, { headers })).json()) as { data: { state: string } }).data
          .state,
      { timeout: 30_000 },
    )
    .toBe('planned');
  expect((await request.post(`/api/fleet/plans/${id}/run`, { headers })).ok()).toBe(true);

  await signIn(page);
  await page.goto(`/fleet/${id}`);
  await expect(page.getByText('Completed', { exact: true })).toBeVisible({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Revert this run' }).click();
  await dialog(page).getByRole('button', { name: 'Plan the revert' }).click();

  // The revert is a plan of its own, read and shown before anything runs.
  await expect(page.getByText(`changed; a domain changed since is left alone unless ticked.`)).toBeVisible();
  await expect(page.getByText(`Revert plan #${planNo} (Set the SSL mode)`)).toBeVisible();
  await expect(page.getByText('Planned', { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByLabel('Will change: 3')).toBeVisible();
  const rows = tableRows(page.getByRole('region', { name: 'Domains of the plan' }));
  for (const d of s.domains) {
    const row = rows.filter({ hasText: d.name });
    await expect(row).toContainText('SSL mode: Full strict');
    await expect(row).toContainText('SSL mode: Off');
  }
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await dialog(page).getByRole('button', { name: 'Run' }).click();
  await expect(page.getByText('Completed', { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('run-text')).toHaveText('3 of 3 domains changed');

  // Read back from Cloudflare on a domain's page: the mode before the run.
  await page.goto(`/domains/${s.domains[1]!._id}/cloud-flare/update-ssl-settings`);
  await expect(page.getByRole('radio', { name: /^Off/ })).toBeChecked();
});

test('Revert on a DNS change in the domain history: the records it changed are put back', async ({ page, request }) => {
  const s = await setUp(request);
  const d = s.domains[0]!;
  const headers = { Authorization: await apiToken(request) };
  const batch = await request.post(`/api/domains/${d._id}/cloud-flare/dns_records`, {
    headers,
    data: { posts: [{ type: 'TXT', name: `_undo.${d.name}`, content: 'put back', ttl: 1, proxied: false }] },
  });
  expect(batch.ok(), await batch.text()).toBe(true);

  await signIn(page);
  await page.goto(`/audit-log?entity=domains&entityId=${d._id}&action=cloudflare_change_dns_records`);
  await tableRows(page)
    .first()
    .getByRole('button', { name: /^Show entry/ })
    .click();
  await dialog(page).getByRole('button', { name: 'Revert' }).click();

  await expect(page.getByText(/Revert audit entry № \d+ \(a DNS change\)/)).toBeVisible();
  await expect(page.getByText('Planned', { exact: true })).toBeVisible({ timeout: 30_000 });
  const row = tableRows(page.getByRole('region', { name: 'Domains of the plan' })).filter({ hasText: d.name });
  await expect(row).toContainText(`TXT _undo.${d.name} put back`);
  await expect(row).toContainText(`DNS TXT _undo.${d.name}: no records`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await dialog(page).getByRole('button', { name: 'Run' }).click();
  await expect(page.getByText('Completed', { exact: true })).toBeVisible({ timeout: 60_000 });

  const records = await request.get(`/api/domains/${d._id}/cloud-flare/dns_records`, { headers });
  const names = ((await records.json()) as { data: { result: { name: string }[] } }).data.result.map((r) => r.name);
  expect(names).not.toContain(`_undo.${d.name}`);
});

test('a partly failing run reads the same on the plan page, the fleet list and the Jobs screen', async ({
  page,
  request,
}) => {
  const s = await setUp(request);
  const token = await apiToken(request);
  const headers = { Authorization: token };
  const created = await request.post('/api/fleet/plans', {
    headers,
    data: { selection: { ids: s.domains.map((d) => d._id) }, action: { kind: 'ssl', value: 'flexible' } },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const plan = ((await created.json()) as { data: { _id: string; planNo: number } }).data;
  await expect
    .poll(
      async () =>
        ((await (await request.get(`/api/fleet/plans/${plan._id}`, { headers })).json()) as { data: { state: string } })
          .data.state,
      { timeout: 30_000 },
    )
    .toBe('planned');
  // One domain loses its zone after the plan: its step fails at run time, the other two change.
  const unlinked = await request.put(`/api/domains/${s.domains[2]!._id}/cloud-flare/unlink-zone`, { headers });
  expect(unlinked.ok(), await unlinked.text()).toBe(true);

  await signIn(page);
  await page.goto(`/fleet/${plan._id}`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await dialog(page).getByRole('button', { name: 'Run' }).click();
  const state = 'Completed with failures: 1 of 3 failed';
  await expect(page.getByTestId('plan-state')).toHaveText(state, { timeout: 60_000 });
  await expect(page.getByTestId('run-text')).toHaveText('2 of 3 domains changed · 1 failed');
  await expect(page.getByText(/has no Cloudflare zone/)).toBeVisible();
  // The run over time (issue 47): the two charts draw what the timeline holds (2 done, 1 failed, one account).
  const timeline = (
    (await (await request.get(`/api/fleet/plans/${plan._id}/timeline`, { headers })).json()) as {
      data: {
        accounts: string[];
        backgroundPerMinute: number;
        minutes: { changed: number; failed: number; requests: Record<string, number> }[];
      };
    }
  ).data;
  expect(timeline.minutes.reduce((n, m) => n + m.changed, 0)).toBe(2);
  expect(timeline.minutes.reduce((n, m) => n + m.failed, 0)).toBe(1);
  await expect(page.getByTestId('fleet-timeline-progress').locator('canvas')).toBeVisible();
  await expect(page.getByTestId('fleet-timeline-accounts').locator('canvas')).toBeVisible();
  for (const a of timeline.accounts) await expect(page.getByTestId('fleet-timeline').getByText(a)).toBeVisible();
  expect(timeline.minutes.reduce((n, m) => n + (m.requests[timeline.accounts[0]!] ?? 0), 0)).toBeGreaterThan(0);
  await expect(
    page
      .getByTestId('fleet-timeline')
      .getByText(`Budget for background work (${timeline.backgroundPerMinute} a minute)`),
  ).toBeVisible();
  // Its job, one click away from the plan: the Jobs screen lists that job and no other (issue 47).
  const { jobId } = (
    (await (await request.get(`/api/fleet/plans/${plan._id}`, { headers })).json()) as { data: { jobId: string } }
  ).data;
  const { jobNo } = (
    (await (await request.get(`/api/jobs/${jobId}`, { headers })).json()) as { data: { jobNo: number } }
  ).data;
  await page.getByRole('link', { name: 'Its job on the Jobs screen' }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs\\?id=${jobId}$`));
  await expect(page.getByText('Total: 1', { exact: true })).toBeVisible();
  const onlyJob = tableRows(page);
  await expect(onlyJob).toHaveCount(1);
  await expect(onlyJob.locator('td[data-label="№"]')).toHaveText(String(jobNo));
  await expect(onlyJob.getByRole('link', { name: `Fleet plan #${plan.planNo}` })).toBeVisible();
  await expect(onlyJob.getByTestId('job-state')).toHaveText(state);
  // Back to every job.
  await page.getByRole('link', { name: 'Show all jobs' }).click();
  await expect(page).toHaveURL(/\/jobs$/);
  // The Jobs screen's jobs per hour count this run among the jobs that ended in the last day.
  const perHour = (
    (await (await request.get('/api/jobs/per-hour', { headers })).json()) as {
      data: { hours: { completed: number; withFailures: number; failed: number; cancelled: number }[] };
    }
  ).data.hours;
  expect(perHour.reduce((n, h) => n + h.withFailures, 0)).toBeGreaterThanOrEqual(1);
  await page.goto('/jobs');
  await expect(page.getByTestId('jobs-per-hour-chart').locator('canvas')).toBeVisible();
  await expect(page.getByTestId('jobs-per-hour-total')).toContainText(/\d+ jobs?, \d+ failed/);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/fleet/${plan._id}`);
    await expect(page.getByTestId('fleet-timeline-progress').locator('canvas')).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await page.screenshot({ path: `test-results/fleet-timeline-${width}.png`, fullPage: true });
    await page.goto('/jobs');
    await expect(page.getByTestId('jobs-per-hour-chart').locator('canvas')).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await page.screenshot({ path: `test-results/jobs-per-hour-${width}.png` });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/fleet/${plan._id}`);

  await page.goto('/fleet');
  const planRow = tableRows(page).filter({ hasText: 'SSL mode → Flexible' }).first();
  await expect(planRow.getByTestId('plan-state')).toHaveText(state);
  await expect(planRow).toContainText('2 of 3 domains changed · 1 failed');

  await page.goto('/jobs?kind=fleet.run');
  const jobRow = tableRows(page).first();
  await expect(jobRow.getByTestId('job-state')).toHaveText(state);
  await expect(jobRow.getByTestId('job-summary')).toHaveText('2 of 3 domains changed, 1 failed: see the plan');
  await jobRow.getByRole('link', { name: 'see the plan' }).click();
  await expect(page).toHaveURL(new RegExp(`/fleet/${plan._id}$`));
  await expect(page.getByTestId('plan-state')).toHaveText(state);
});

test('Resume of a failed run on the Jobs screen keeps each failure and its reason, in the same words everywhere', async ({
  page,
  request,
}) => {
  const s = await setUp(request);
  const token = await apiToken(request);
  const headers = { Authorization: token };
  const created = await request.post('/api/fleet/plans', {
    headers,
    data: { selection: { ids: s.domains.map((d) => d._id) }, action: { kind: 'ssl', value: 'flexible' } },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const plan = ((await created.json()) as { data: { _id: string } }).data;
  await expect
    .poll(
      async () =>
        ((await (await request.get(`/api/fleet/plans/${plan._id}`, { headers })).json()) as { data: { state: string } })
          .data.state,
      { timeout: 30_000 },
    )
    .toBe('planned');
  // Every domain loses its zone after the plan: the run fails on all three.
  for (const d of s.domains) {
    const unlinked = await request.put(`/api/domains/${d._id}/cloud-flare/unlink-zone`, { headers });
    expect(unlinked.ok(), await unlinked.text()).toBe(true);
  }
  await signIn(page);
  await page.goto(`/fleet/${plan._id}`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await dialog(page).getByRole('button', { name: 'Run' }).click();
  const state = 'Failed: 3 of 3 failed';
  await expect(page.getByTestId('plan-state')).toHaveText(state, { timeout: 60_000 });

  const jobOf = async () =>
    (
      (await (await request.get(`/api/fleet/plans/${plan._id}`, { headers })).json()) as {
        data: { jobId: string };
      }
    ).data.jobId;
  const jobId = await jobOf();
  const finishedAt = async () =>
    ((await (await request.get(`/api/jobs/${jobId}`, { headers })).json()) as { data: { finishedAt: string | null } })
      .data.finishedAt;
  const before = await finishedAt();
  await page.goto('/jobs?kind=fleet.run');
  const jobRow = tableRows(page).first();
  await expect(jobRow.getByTestId('job-state')).toHaveText(state);
  await jobRow.getByRole('button', { name: 'Resume', exact: true }).click();
  // Tried again and failing again: still failed, never "Completed" with the failures turned into skips.
  await expect.poll(async () => (await finishedAt()) ?? before, { timeout: 60_000 }).not.toBe(before);
  await page.reload();
  await expect(tableRows(page).first().getByTestId('job-state')).toHaveText(state);
  await expect(tableRows(page).first().getByTestId('job-summary')).toHaveText(
    '0 of 3 domains changed, 3 failed: see the plan',
  );
  await page.goto(`/fleet/${plan._id}`);
  await expect(page.getByTestId('plan-state')).toHaveText(state);
  await expect(page.getByTestId('run-text')).toHaveText('0 of 3 domains changed · 3 failed');
  await expect(page.getByText(/has no Cloudflare zone/).first()).toBeVisible();
});
