import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FleetPlan } from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

// The budget on a compressed clock: Cloudflare's 1,200 requests per 5 minutes become 20 per 2 s, enforced by
// the simulator (429 past it) and known to the console. A fleet run must never meet a 429, and an operator's
// own call must still get through while it runs.
const REQUESTS = 20;
const WINDOW_MS = 2000;
let t: TestApp;
let sim: CloudflareSim;
let h: string;

beforeAll(async () => {
  sim = await startCloudflareSim({ rateLimit: { requests: REQUESTS, windowMs: WINDOW_MS } });
  t = await createTestApp(
    {
      CLOUDFLARE_API_URL: sim.url,
      CLOUDFLARE_TIMEOUT_SECONDS: '5',
      CLOUDFLARE_BUDGET_PER_5_MIN: String(REQUESTS),
      CLOUDFLARE_BUDGET_WINDOW_SECONDS: String(WINDOW_MS / 1000),
      CLOUDFLARE_INTERACTIVE_RESERVE: '0.2',
      // A loaded test machine can hold a request back between counting and sending for longer than the default.
      CLOUDFLARE_BUDGET_MARGIN_MS: '750',
      FLEET_ACCOUNT_CONCURRENCY: '4',
    },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  h = await t.tokenFor(['cnv']);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: h }, payload });
async function waitPlan(id: string, states: string[]): Promise<FleetPlan> {
  for (let i = 0; i < 1200; i++) {
    const p = (await call('GET', `/api/fleet/plans/${id}`)).json().data as FleetPlan;
    if (states.includes(p.state)) return p;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('plan did not finish');
}

it('a run never exceeds the account budget, and an interactive call gets through during it', async () => {
  const token = 'budget-token-0123456789abcdef';
  const { accountId } = sim.addAccount({ email: 'budget@example.com', token });
  const cloud = (await call('POST', '/api/clouds', { email: 'budget@example.com', token })).json().data;
  const ids: string[] = [];
  for (let i = 0; i < 14; i++) {
    const name = `budget-${i}.com`;
    const d = (await call('POST', '/api/domains', { domainName: name, status: 'active', cloudId: cloud._id })).json()
      .data;
    // Zones made at the simulator and linked in the database: setting up spends none of the budget.
    const { zoneId } = sim.addZone(accountId, name);
    await t.c.repos.domains.update(d._id, { cloudZoneId: zoneId });
    ids.push(d._id);
  }
  const seen: number[] = [];
  sim.afterRequest((e) => {
    if (e.status !== 429) seen.push(Date.now());
  });

  const created = await call('POST', '/api/fleet/plans', {
    selection: { ids },
    action: { kind: 'ssl', value: 'strict' },
  });
  expect(created.statusCode, created.body).toBe(201);
  const planned = await waitPlan(created.json().data._id, ['planned']);
  expect(planned.counts.change).toBe(14);
  expect((await call('POST', `/api/fleet/plans/${planned._id}/run`)).statusCode).toBe(200);
  // While the run spends the background share, an operator's call is answered at once, not refused.
  await new Promise((r) => setTimeout(r, 300));
  const interactive = await call('GET', `/api/domains/${ids[0]}/cloud-flare/settings/ssl`);
  expect(interactive.statusCode, interactive.body).toBe(200);
  const done = await waitPlan(planned._id, ['completed', 'failed']);
  expect(done.run).toMatchObject({ done: 14, failed: 0 });

  // Not one 429 met, and no window of the simulator's clock held more than the budget.
  expect(sim.usage().get(accountId)?.rateLimited).toBe(0);
  let most = 0;
  for (let i = 0, j = 0; i < seen.length; i++) {
    while (seen[j]! <= seen[i]! - WINDOW_MS) j++;
    most = Math.max(most, i - j + 1);
  }
  expect(most).toBeLessThanOrEqual(REQUESTS);
  // 14 reads to plan, 14 reads and 14 writes to run, all paced: the run took more than one window.
  expect(sim.usage().get(accountId)?.requests).toBe(14 * 3 + 1);
  expect(seen[seen.length - 1]! - seen[0]!).toBeGreaterThan(WINDOW_MS);
}, 120_000);
