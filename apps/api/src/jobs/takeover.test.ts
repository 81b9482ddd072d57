import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetPlan, Job } from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { openPostgres, type Database } from '../db/client.ts';
import { realPostgresUrl } from '../test/real-postgres.ts';
import { runsInOtherCiStep } from '../test/ci-step.ts';
import { TAKEOVER_USER } from './takeover-worker.ts';

/**
 * Killed work comes back (decision 039): a fleet run of 40 domains, its worker killed with SIGKILL mid-run. On
 * PGlite the one process is started again on the same data directory; on PostgreSQL a second worker is already
 * there. Either way the run is taken back once its heartbeat is silent, carries on from the first domain not
 * done, and every domain is changed exactly once (counted at the Cloudflare simulator).
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../../..');
const WORKER = path.join(HERE, 'takeover-worker.ts');
const APP_KEY = crypto.randomBytes(32).toString('hex');
const DOMAINS = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Proc = { child: ChildProcess; url: string; worker: string };
const children = new Set<ChildProcess>();

async function start(env: Record<string, string>): Promise<Proc> {
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
async function kill9(child: ChildProcess) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** The API of one process, signed in as the test user. */
async function client(url: string) {
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
type Api = Awaited<ReturnType<typeof client>>;

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
async function startRun(sim: CloudflareSim, api: Api) {
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
async function checkFinished(sim: CloudflareSim, api: Api, planId: string, zones: string[]) {
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

afterAll(() => {
  for (const ch of children) ch.kill('SIGKILL');
});

describe('killed work comes back, with real processes', () => {
  let sim: CloudflareSim;
  beforeAll(async () => {
    sim = await startCloudflareSim();
  });
  afterAll(async () => {
    await sim?.close();
  });

  // Its processes run on the embedded database whatever the suite's DATABASE_URL.
  it.skipIf(runsInOtherCiStep('jobs/takeover.test.ts (PGlite)', 'pglite'))(
    'PGlite: the process killed with SIGKILL mid-run and started again finishes the run, each domain once',
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-takeover-'));
      const env = {
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        CLOUDFLARE_API_URL: sim.url,
        CLOUDFLARE_TIMEOUT_SECONDS: '10',
      };
      try {
        const first = await start(env);
        const { planId, zones } = await startRun(sim, await client(first.url));
        await kill9(first.child);
        const killedAt = Date.now();
        const second = await start(env);
        await checkFinished(sim, await client(second.url), planId, zones);
        console.info(`PGlite: finished ${Math.round((Date.now() - killedAt) / 1000)} s after the kill`);
        second.child.kill('SIGTERM');
        await new Promise((r) => second.child.once('exit', r));
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    600_000,
  );

  const BASE_URL = realPostgresUrl('jobs/takeover.test.ts', 'the PostgreSQL takeover test needs');
  it.skipIf(!BASE_URL)(
    'PostgreSQL: of two workers, the one holding the run is killed; the other takes it back, each domain once',
    async () => {
      const admin: Database = await openPostgres(BASE_URL!, { max: 1 });
      const dbName = `fd_test_${crypto.randomBytes(6).toString('hex')}`;
      await admin.exec(`CREATE DATABASE ${dbName}`);
      const u = new URL(BASE_URL!);
      u.pathname = `/${dbName}`;
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-takeover-pg-'));
      const env = (n: number) => ({
        DATABASE_URL: u.toString(),
        DATA_DIR: path.join(dataDir, String(n)),
        CLOUDFLARE_API_URL: sim.url,
        CLOUDFLARE_TIMEOUT_SECONDS: '10',
      });
      const db = await openPostgres(u.toString(), { max: 2 });
      try {
        const a = await start(env(1));
        const b = await start(env(2));
        const { planId, zones } = await startRun(sim, await client(a.url));
        const plan = (await (await client(a.url))('GET', `/api/fleet/plans/${planId}`)) as unknown as FleetPlan;
        const res = (await db.db.execute(`select worker from jobs where id = '${plan.jobId}'`)) as unknown as {
          rows: { worker: string }[];
        };
        const holder = res.rows[0]!.worker === a.worker ? a : b;
        const other = holder === a ? b : a;
        await kill9(holder.child);
        const killedAt = Date.now();
        await checkFinished(sim, await client(other.url), planId, zones);
        console.info(`PostgreSQL: finished ${Math.round((Date.now() - killedAt) / 1000)} s after the kill`);
      } finally {
        for (const ch of children) ch.kill('SIGKILL');
        await db.close();
        await admin.exec(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
        await admin.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    600_000,
  );
});
