import { afterAll, beforeAll, beforeEach, expect, vi } from 'vitest';
import type { FleetItem, FleetPlan } from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { createTestApp, type TestApp } from './harness.ts';

/** The value `get()` answers once the file's `beforeAll` has run, usable as a plain object meanwhile. */
function late<T extends object>(get: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_, key) {
      const target = get();
      if (!target) throw new Error(`${what} is not started yet (use it inside a test or hook)`);
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/**
 * The usual set-up of a test file: one app for the file, emptied before each test. `before` and `after` start and
 * stop what the file needs beside the app (a simulator, before the app and closed after it); `each` resets it
 * before each test.
 */
export function useTestApp(
  /** A function when the values are known only once `before` ran (a simulator's address). */
  env: Record<string, string> | (() => Record<string, string>) = {},
  o: {
    opts?: Parameters<typeof createTestApp>[1];
    before?: () => Promise<unknown>;
    after?: () => Promise<unknown>;
    each?: () => unknown;
  } = {},
): TestApp {
  let t: TestApp | undefined;
  beforeAll(async () => {
    await o.before?.();
    t = await createTestApp(typeof env === 'function' ? env() : env, o.opts);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await o.after?.();
  });
  beforeEach(async () => {
    await t!.reset();
    await o.each?.();
  });
  return late(() => t, 'The test app');
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Calls as a user holding every rule (signed in again before each test, after the reset), and the records most
 * module tests start from: `create` (expects 201) and `domainOn` (a domain, on a new server with `server`'s fields).
 * Call after useTestApp so that the reset runs first.
 */
export function useAdminCalls(t: TestApp, o: { domainPrefix?: string; username?: string } = {}) {
  let h = '';
  let seq = 0;
  beforeEach(async () => {
    h = await t.tokenFor(['cnv'], o.username ? { username: o.username } : {});
  });
  const call = (method: Method, url: string, payload?: object, auth = h) =>
    t.inject({ method, url, headers: { authorization: auth }, payload });
  const create = async (resource: string, payload: object) => {
    const res = await call('POST', `/api/${resource}`, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { _id: string } & Record<string, unknown>;
  };
  const nextName = () => `${o.domainPrefix ?? 'site'}-${++seq}.example`;
  const domainOn = async (server: object | null, name = nextName()) => {
    const s = server ? await create('servers', { IPAddress: '127.0.0.1', domainsLimitQty: 10, ...server }) : null;
    const d = await create('domains', { domainName: name, status: 'active', serverId: s?._id ?? null });
    return { domainId: d._id, serverId: s?._id, server: s, name };
  };
  return { call, create, domainOn, nextName, token: () => h };
}

let uniqueSeq = 0;
/** A name no other test of the file holds, nor what a simulator kept from an earlier test. */
export const unique = (prefix: string) => `${prefix}-${++uniqueSeq}-${Math.random().toString(36).slice(2, 8)}`;

/** A Cloudflare simulator for the file and an app whose Cloudflare client speaks to it. */
export function useCloudflareSimApp() {
  let sim: CloudflareSim | undefined;
  const t = useTestApp(() => ({ CLOUDFLARE_API_URL: sim!.url, CLOUDFLARE_TIMEOUT_SECONDS: '5' }), {
    before: async () => {
      sim = await startCloudflareSim();
    },
    after: async () => sim?.close(),
  });
  return { t, sim: late(() => sim, 'The Cloudflare simulator') };
}

/**
 * The fleet tests' set-up: one app for the file with its job workers running (not emptied between tests: each test
 * makes its own accounts and domains), a Cloudflare simulator, and calls as a user holding every rule.
 */
export function useFleetApp(
  env: Record<string, string> | (() => Record<string, string>) = {},
  /** Another simulator started before the app (it may read the Cloudflare one's zones), and closed after. */
  o: { before?: (sim: CloudflareSim) => Promise<unknown>; after?: () => Promise<unknown> } = {},
) {
  let t: TestApp | undefined;
  let sim: CloudflareSim | undefined;
  let h = '';
  let seq = 0;
  // Each test plans and runs several fleet plans through real jobs: on a loaded CI machine (the browser suite
  // beside, PGlite on the test's own thread) a 5 s Cloudflare timeout and a 30 s test read stalls as failures.
  vi.setConfig({ testTimeout: 120_000 });
  beforeAll(async () => {
    sim = await startCloudflareSim();
    await o.before?.(sim);
    t = await createTestApp(
      {
        CLOUDFLARE_API_URL: sim.url,
        CLOUDFLARE_TIMEOUT_SECONDS: '20',
        FLEET_ACCOUNT_CONCURRENCY: '1',
        ...(typeof env === 'function' ? env() : env),
      },
      { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
    );
    await t.c.startJobs({ periodic: false });
    h = await t.tokenFor(['cnv']);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await sim?.close();
    await o.after?.();
  });
  const app = late(() => t, 'The test app');
  const call = (method: Method, url: string, payload?: object, auth = h) =>
    app.inject({ method, url, headers: { authorization: auth }, payload });
  /** POSTs and expects 201. */
  const create = async (resource: string, payload: object) => {
    const res = await call('POST', `/api/${resource}`, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { _id: string } & Record<string, unknown>;
  };
  const unique = (prefix: string) => `${prefix}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
  /** Reads the fleet plan until it is in one of `states`. */
  const waitPlan = async (id: string, states: string[], timeoutMs = 60_000): Promise<FleetPlan> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const res = await call('GET', `/api/fleet/plans/${id}`);
      expect(res.statusCode, res.body).toBe(200);
      const p = res.json().data as FleetPlan;
      if (states.includes(p.state)) return p;
      if (Date.now() > until) throw new Error(`plan ${id} stayed ${p.state}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return {
    t: app,
    sim: late(() => sim, 'The Cloudflare simulator'),
    call,
    create,
    unique,
    waitPlan,
    /** A new account on the simulator and the console's cloud for it: the cloud's id. */
    async account() {
      const email = `${unique('ops')}@example.com`;
      const token = `${unique('token')}-0123456789abcdef`;
      sim!.addAccount({ email, token });
      return (await create('clouds', { email, token }))._id;
    },
    /** A console domain of `cloudId` with a zone created for it at the simulator. */
    async zonedDomain(cloudId: string, prefix = 'site') {
      const name = `${unique(prefix)}.com`;
      const d = await create('domains', { domainName: name, status: 'active', cloudId });
      const res = await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`);
      expect(res.statusCode, res.body).toBe(200);
      return { id: d._id, name, zoneId: res.json().data.cloudZoneId as string };
    },
    /** Plans `action` over the domains `ids` and waits until it is planned (or failed). */
    async planFleet(ids: string[], action: object): Promise<FleetPlan> {
      const res = await call('POST', '/api/fleet/plans', { selection: { ids }, action });
      expect(res.statusCode, res.body).toBe(201);
      return waitPlan(res.json().data._id, ['planned', 'failed']);
    },
    /** Runs a planned plan and waits for its end. */
    async runPlan(id: string): Promise<FleetPlan> {
      expect((await call('POST', `/api/fleet/plans/${id}/run`)).statusCode).toBe(200);
      return waitPlan(id, ['completed', 'completed_with_failures', 'failed', 'cancelled']);
    },
    /** The first page of a plan's items, by domain id. */
    itemsByDomain: async (id: string) =>
      new Map(
        ((await call('GET', `/api/fleet/plans/${id}/items`)).json().data.items as FleetItem[]).map((i) => [
          i.domainId,
          i,
        ]),
      ),
  };
}

/** A new account on the simulator and the console's cloud for it. */
export async function cloudOnSim(
  sim: CloudflareSim,
  create: (resource: string, payload: object) => Promise<{ _id: string }>,
) {
  const email = `${unique('ops')}@example.com`;
  const token = `${unique('secret')}-0123456789abcdef`;
  const { accountId } = sim.addAccount({ email, token });
  const cloud = await create('clouds', { email, token });
  return { accountId, cloud, email, token };
}

/** A registrant contact's fields that Namecheap's simulator accepts (add a unique `name` when creating one). */
export const REGISTRANT = {
  firstName: 'Dana',
  lastName: 'Registrant',
  address1: '1 Example Street',
  city: 'Lisbon',
  state: 'Lisboa',
  postalCode: '1000-001',
  country: 'PT',
  phone: '+351.210000000',
  email: 'dana@example.org',
};
