import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import type { FleetPlan, Job } from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { TAKEOVER_USER } from './takeover-worker.ts';

/**
 * The takeover tests' processes and checks (takeover.test.ts on PostgreSQL, takeover-pglite.test.ts): a worker
 * process, a fleet run of 40 domains started through its API, SIGKILL, and the check that the run finished with every
 * domain changed exactly once (counted at the Cloudflare simulator).
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../../..');
const WORKER = path.join(HERE, 'takeover-worker.ts');
const APP_KEY = crypto.randomBytes(32).toString('hex');
const DOMAINS = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Proc = { child: ChildProcess; url: string; worker: string };
const children = new Set<ChildProcess>();

/** A test file's set-up: the Cloudflare simulator for its runs, and no worker left behind. Returns the simulator. */
export function useTakeoverSim(): () => CloudflareSim {
  let sim: CloudflareSim | undefined;
  beforeAll(async () => {
    sim = await startCloudflareSim();
  });
  afterAll(async () => {
    killAll();
    await sim?.close();
  });
  return () => sim!;
}

/** Kills every worker still running (a test's clean-up). */
export function killAll() {
  for (const ch of children) ch.kill('SIGKILL');
}

export async function start(env: Record<string, string>): Promise<Proc> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    cwd: ROOT,
    env: { ...process.env, ...env, APP_SECRET_KEY: APP_KEY, LOG_LEVEL: 'silent', FLEET_ACCOUNT_CONCURRENCY: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let err = '';
  child.stderr!.on('data', (d) => (err = (err + String(d)).slice(-4000)));
  return new Promise<Proc>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the worker did not start within 90 s: ${err}`)), 90_000);
    child.stdout!.on('data', (d) => {
      const m = /ready (\d+) (\S+)/.exec(String(d));
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: `http://127.0.0.1:${m[1]}`, worker: m[2]! });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited with ${code}: ${err}`));
    });
  });
}
export async function kill9(child: ChildProcess) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** The API of one process, signed in as the test user. */
export async function client(url: string) {
  const login = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(TAKEOVER_USER),
  });
  expect(login.status).toBe(200);
  const authorization = login.headers.get('authorization')!;
  return async (method: string, p: string, body?: object) => {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return (JSON.parse(text) as { data: unknown }).data as Record<string, unknown>;
  };
}
export type Api = Awaited<ReturnType<typeof client>>;

async function waitFor<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read().catch(() => undefined);
    if (v !== undefined && ok(v)) return v;
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(v)})`);
    await sleep(250);
  }
}

/** 40 domains with zones, planned (SSL → Full strict), run slowly; returns the plan once about a third is done. */
export async function startRun(sim: CloudflareSim, api: Api) {
  const email = `ops-${crypto.randomBytes(3).toString('hex')}@example.com`;
  const token = `token-${crypto.randomBytes(8).toString('hex')}`;
  sim.addAccount({ email, token });
  const cloud = await api('POST', '/api/clouds', { email, token });
  const ids: string[] = [];
  const zones: string[] = [];
  for (let i = 0; i < DOMAINS; i++) {
    const d = await api('POST', '/api/domains', {
      domainName: `takeover-${crypto.randomBytes(4).toString('hex')}.com`,
      status: 'active',
      cloudId: cloud._id,
      brandId: null,
    });
    const z = await api('POST', `/api/domains/${d._id as string}/cloud-flare/create-zone`);
    ids.push(d._id as string);
    zones.push(z.cloudZoneId as string);
  }
  const created = await api('POST', '/api/fleet/plans', {
    selection: { ids },
    action: { kind: 'ssl', value: 'strict' },
  });
  const planId = created._id as string;
  await waitFor(
    'planned',
    () => api('GET', `/api/fleet/plans/${planId}`),
    (p) => p.state === 'planned',
    120_000,
  );
  // Slow enough to kill it in the middle: every Cloudflare answer is held back.
  sim.fail({ kind: 'slow', delayMs: 120, count: 100_000 });
  await api('POST', `/api/fleet/plans/${planId}/run`);
  await waitFor(
    'a third done',
    () => api('GET', `/api/fleet/plans/${planId}`) as Promise<FleetPlan>,
    (p) => p.run.done >= DOMAINS / 3,
    120_000,
  );
  return { planId, zones };
}

/** After the takeover: finished, every domain changed once, the progress matches the rows. */
export async function checkFinished(sim: CloudflareSim, api: Api, planId: string, zones: string[]) {
  const plan = (await waitFor(
    'the run finished after the kill',
    () => api('GET', `/api/fleet/plans/${planId}`) as Promise<FleetPlan>,
    (p) => !['running', 'paused'].includes(p.state),
    240_000,
  )) as FleetPlan;
  sim.clearFailures();
  expect(plan.state).toBe('completed');
  expect(plan.run).toMatchObject({ total: DOMAINS, failed: 0, pending: 0 });
  expect(plan.run.done + plan.run.same).toBe(DOMAINS);
  for (const z of zones) expect(sim.state.zones.get(z)!.settings.ssl.value).toBe('strict');
  // Each zone's SSL mode was written once: a domain finished before the kill was not worked on again.
  const writes = new Map<string, number>();
  for (const r of sim.state.requests) {
    const zone = /\/zones\/([^/]+)\/settings\/ssl$/.exec(r.path)?.[1];
    if (zone && r.method === 'PATCH' && r.status < 300) writes.set(zone, (writes.get(zone) ?? 0) + 1);
  }
  for (const z of zones) expect(writes.get(z), `SSL writes to zone ${z}`).toBe(1);
  const job = (await api('GET', `/api/jobs/${plan.jobId}`)) as unknown as Job;
  expect(job.state).toBe('completed');
  expect(job.progress?.tally).toMatchObject({ total: DOMAINS, failed: 0, changed: plan.run.done, same: plan.run.same });
  expect(job.attempts).toBeGreaterThanOrEqual(2);
}
