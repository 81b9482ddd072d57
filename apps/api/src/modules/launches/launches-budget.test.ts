import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Launch, LaunchStage } from '@fleetdesk/contract';
import { startNamecheapSim, type NamecheapSim } from '@fleetdesk/simulators/namecheap/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { REGISTRANT } from '../../test/fixtures.ts';
import { BUDGET_WAITS } from './launches.service.ts';

// A launch stage that meets our own spent provider budget (a 429 of the Namecheap client's per-account limit) waits
// it out visibly and goes on, or gives up after BUDGET_WAITS waits naming the provider. The budget's window is
// compressed (NAMECHEAP_BUDGET_WINDOW_SECONDS) so that its refill takes seconds, not a minute.
const NC_KEY = 'nc-api-key-for-budget-tests-01';
let nc: NamecheapSim;
let seq = 0;
const unique = (p: string) => `${p}-${++seq}-${crypto.randomBytes(3).toString('hex')}`;

type App = { t: TestApp; h: string; registratorId: string; contactId: string; apiUser: string };

/** An app whose Namecheap budget is `calls` per `windowSeconds`, with a registrator and a contact. */
async function appWithBudget(calls: number, windowSeconds: number): Promise<App> {
  const t = await createTestApp(
    {
      NAMECHEAP_CLIENT_IP: '198.51.100.7',
      NAMECHEAP_TIMEOUT_SECONDS: '15',
      NAMECHEAP_CALLS_PER_MINUTE: String(calls),
      NAMECHEAP_BUDGET_WINDOW_SECONDS: String(windowSeconds),
    },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  const h = await t.tokenFor(['cnv']);
  const create = async (resource: string, payload: object) => {
    const res = await t.inject({ method: 'POST', url: `/api/${resource}`, headers: { authorization: h }, payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data._id as string;
  };
  const apiUser = unique('budget').slice(0, 20);
  nc.addAccount({ apiUser, apiKey: NC_KEY, balance: 500 });
  const registratorId = await create('domain-registrators', {
    name: unique('Namecheap'),
    type: 'namecheap',
    credentials: { endpointUrl: nc.url, apiUsername: apiUser, apiKey: NC_KEY },
  });
  const contactId = await create('domain-registrators-contacts', {
    name: unique('Registrant'),
    ...REGISTRANT,
  });
  return { t, h, registratorId, contactId, apiUser };
}

/** A launch that only registers the name (no cloud, server, content or search engine). */
async function launch(a: App, domainName: string): Promise<Launch> {
  const res = await a.t.inject({
    method: 'POST',
    url: '/api/launches',
    headers: { authorization: a.h },
    payload: {
      domainName,
      registration: { domainRegistratorId: a.registratorId, register: true, contactId: a.contactId, years: 1 },
      confirmCostly: true,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

/** Polls the launch (bounded), handing each answer to `seen`, until `done` holds. */
async function until(a: App, id: string, done: (l: Launch) => boolean, seen?: (l: Launch) => void, ms = 40_000) {
  const end = Date.now() + ms;
  for (;;) {
    const l: Launch = (
      await a.t.inject({ method: 'GET', url: `/api/launches/${id}`, headers: { authorization: a.h } })
    ).json().data;
    seen?.(l);
    if (done(l)) return l;
    if (Date.now() > end) throw new Error(`launch stuck: ${JSON.stringify({ state: l.state, stages: l.stages })}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const register = (l: Launch) => l.stages.find((s) => s.key === 'register')!;
const settled = (l: Launch) => ['completed', 'failed', 'cancelled', 'needs_confirmation'].includes(l.state);

beforeAll(async () => {
  nc = await startNamecheapSim({ rateLimit: false, whitelist: ['198.51.100.7'] });
});
afterAll(async () => {
  await nc?.close();
});

describe('a spent provider budget', () => {
  let a: App;
  beforeAll(async () => {
    a = await appWithBudget(10, 10);
  }, 60_000);
  afterAll(async () => {
    await a?.t.close();
  });

  it('is waited out visibly (what for, since when, next look), and the stage finishes once it refills', async () => {
    const name = `${unique('refill')}.com`;
    // Every call of the account's window spent by someone else (the same client, so the same budget).
    const creds = { endpointUrl: nc.url, apiUser: a.apiUser, apiKey: NC_KEY };
    for (let i = 0; i < 10; i++) await a.t.c.namecheap.check(creds, [`${unique('spend')}.com`]);
    const spentAt = Date.now();

    const l = await launch(a, name);
    let waiting: LaunchStage | null = null;
    let launchWaited = false;
    const done = await until(a, l._id, settled, (x) => {
      if (register(x).state === 'waiting') {
        waiting ??= register(x);
        if (x.state === 'waiting') launchWaited = true;
      }
    });
    expect(waiting, 'the register stage was never seen waiting').not.toBeNull();
    const w = waiting as unknown as LaunchStage;
    expect(w.waitingFor).toMatch(/^the provider's call budget \(Namecheap: the 10 calls per 10 s allowed/);
    expect(Date.parse(w.since!)).toBeGreaterThanOrEqual(spentAt - 1000);
    expect(Date.parse(w.nextCheckAt!)).toBeGreaterThan(Date.parse(w.since!));
    expect(launchWaited).toBe(true);

    expect(done.state, JSON.stringify(done.stages.map((s) => [s.key, s.state, s.error]))).toBe('completed');
    expect(register(done)).toMatchObject({ state: 'done', error: null, waitingFor: null, attempts: 1 });
    expect(nc.state.accounts.get(a.apiUser)!.domains.has(name)).toBe(true);
  }, 60_000);
});

describe('a provider budget that stays spent', () => {
  let a: App;
  beforeAll(async () => {
    // One call per window, and registering takes two (is it in the account? then create): every attempt meets it.
    a = await appWithBudget(1, 2);
  }, 60_000);
  afterAll(async () => {
    await a?.t.close();
  });

  it(`fails the stage after ${BUDGET_WAITS} waits, with the provider's message`, async () => {
    const name = `${unique('spent')}.com`;
    const l = await launch(a, name);
    const waits = new Set<string>();
    const failed = await until(
      a,
      l._id,
      settled,
      (x) => {
        const s = register(x);
        if (s.state === 'waiting' && s.nextCheckAt) waits.add(s.nextCheckAt);
      },
      60_000,
    );
    expect(failed.state).toBe('failed');
    const s = register(failed);
    expect(s.state).toBe('failed');
    expect(s.error).toMatch(
      new RegExp(
        `^Namecheap: the 1 calls per 2 s allowed for this account are used up; try again in \\d+ s \\(gave up after waiting ${BUDGET_WAITS} times for the call budget\\)$`,
      ),
    );
    expect(failed.error).toBe(`${s.label}: ${s.error}`);
    expect(s.waitingFor).toBeNull();
    // Each wait is seen once (a new next look); none more.
    expect(waits.size).toBe(BUDGET_WAITS);
    expect(nc.state.accounts.get(a.apiUser)!.domains.has(name)).toBe(false);
  }, 90_000);
});
