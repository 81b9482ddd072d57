import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realPostgresUrl } from '../test/real-postgres.ts';
import type { Database } from '../db/client.ts';
import { createFaultDatabase, faultProcesses, startWatcher } from '../test/fault-processes.ts';
import type { Container } from '../container.ts';
import { faultJobKinds } from './fault-kinds.ts';

/**
 * Faults with real processes: a worker killed with SIGKILL mid-job, and two workers plus an API process
 * sharing 200 jobs. PostgreSQL only: PGlite lives inside one process, so there is nothing to kill or share.
 * With CI set they run against DATABASE_URL or else the CI server at 127.0.0.1:5432, and fail if it is
 * unreachable; without CI they run when DATABASE_URL is set and are skipped (saying so) otherwise.
 */
const BASE_URL = realPostgresUrl('jobs/fault.test.ts', 'the fault tests need');

const APP_KEY = crypto.randomBytes(32).toString('hex');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!BASE_URL)('durable jobs under faults, with real processes (PostgreSQL)', () => {
  let database: Database;
  let c: Container;
  let dbUrl: string;
  let drop: (() => Promise<void>) | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-fault-'));
  const processes = faultProcesses({ dbUrl: () => dbUrl, dataDir, appKey: APP_KEY });
  const spawnProcess = processes.start;
  const kill9 = processes.kill9;
  const rows = async <T>(q: ReturnType<typeof sql>) => (await database.db.execute(q)) as unknown as { rows: T[] };

  beforeAll(async () => {
    // Unreachable PostgreSQL fails here, loudly, rather than skipping.
    ({ database, url: dbUrl, drop } = await createFaultDatabase(BASE_URL!));
    await database.exec(
      `CREATE TABLE fault_runs (job_id uuid NOT NULL, pid integer NOT NULL, started_at timestamptz NOT NULL, finished_at timestamptz NOT NULL);
       CREATE TABLE fault_steps (job_id uuid NOT NULL, step integer NOT NULL, pid integer NOT NULL, PRIMARY KEY (job_id, step));`,
    );
    c = await startWatcher({
      database,
      dbUrl,
      dataDir,
      appKey: APP_KEY,
      extraJobs: faultJobKinds(() => database),
    });
  }, 120_000);

  afterAll(async () => {
    processes.killAll();
    await c?.close().catch(() => undefined);
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a worker killed with SIGKILL mid-job: the job is picked up again and ends with the same result', async () => {
    const a = await spawnProcess('worker');
    const payload = { steps: 20, stepMs: 100 };
    const job = await c.jobEngine.enqueue('fault.steps', payload);
    let seen = 0;
    for (let i = 0; i < 300 && seen < 5; i++) {
      const r = await c.repos.jobs.find(job.id);
      seen = (r?.progress as { done?: number } | null)?.done ?? 0;
      if (seen < 5) await sleep(50);
    }
    expect(seen).toBeGreaterThanOrEqual(5);
    await kill9(a);
    const mid = (await c.repos.jobs.find(job.id))!;
    expect(mid.state).toBe('running');

    const b = await spawnProcess('worker');
    const done = await c.jobEngine.waitFor(job.id, 60_000);
    expect(done.state).toBe('completed');
    expect(done.attempts).toBe(2);
    expect(done.result).toEqual({ steps: 20, sum: 190 });
    const pids = await rows<{ pid: number }>(sql`select distinct pid from fault_steps where job_id = ${job.id}`);
    expect(pids.rows.map((r) => r.pid).sort()).toEqual([a.pid, b.pid].sort());

    // The same job without a kill gives the same result.
    const clean = await c.jobEngine.enqueue('fault.steps', { steps: 20, stepMs: 0 });
    const cleanDone = await c.jobEngine.waitFor(clean.id, 30_000);
    expect(cleanDone.result).toEqual(done.result);
    expect(cleanDone.attempts).toBe(1);
    await kill9(b);
  }, 120_000);

  it('two workers and an API process run 200 queued jobs, each exactly once and never twice at once', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 200; n++) ids.push((await c.jobEngine.enqueue('fault.count', { n })).id);
    await Promise.all([spawnProcess('worker'), spawnProcess('worker'), spawnProcess('api')]);
    const until = Date.now() + 90_000;
    let finished = 0;
    while (Date.now() < until) {
      const r = await rows<{ n: number }>(
        sql`select count(*)::int as n from jobs where kind = 'fault.count' and state in ('completed', 'failed', 'cancelled')`,
      );
      finished = r.rows[0]!.n;
      if (finished >= 200) break;
      await sleep(250);
    }
    expect(finished).toBe(200);
    const states = await rows<{ state: string; attempts: number; n: number }>(
      sql`select state, attempts, count(*)::int as n from jobs where kind = 'fault.count' group by state, attempts`,
    );
    expect(states.rows).toEqual([{ state: 'completed', attempts: 1, n: 200 }]);
    const runs = await rows<{ runs: number; jobs: number; pids: number }>(
      sql`select count(*)::int as runs, count(distinct job_id)::int as jobs, count(distinct pid)::int as pids from fault_runs`,
    );
    expect(runs.rows[0]!.runs).toBe(200);
    expect(runs.rows[0]!.jobs).toBe(200);
    expect(new Set(ids).size).toBe(200);
    // More than one process took part (the exact split depends on the scheduler).
    expect(runs.rows[0]!.pids).toBeGreaterThanOrEqual(2);
    const overlaps = await rows<{ n: number }>(
      sql`select count(*)::int as n from fault_runs a join fault_runs b on a.job_id = b.job_id and a.ctid <> b.ctid
          and a.started_at < b.finished_at and b.started_at < a.finished_at`,
    );
    expect(overlaps.rows[0]!.n).toBe(0);
  }, 180_000);
});

// Only outside CI and without DATABASE_URL (CI always has PostgreSQL, so there nothing is skipped).
if (!BASE_URL) {
  describe('durable jobs under faults (skipped on PGlite)', () => {
    it.skip('needs PostgreSQL: PGlite lives in one process, so there is no worker to kill or share with', () => {});
  });
}
