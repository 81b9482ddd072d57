import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { realPostgresUrl } from '../test/real-postgres.ts';
import { openPostgres, type Database } from '../db/client.ts';
import { createFaultDatabase, faultProcesses, startWatcher } from '../test/fault-processes.ts';
import type { Container } from '../container.ts';
import { systemActor } from '../http/context.ts';
import { domains } from '../db/schema/index.ts';

/**
 * The database goes away under a fleet run (issue 42): every backend of the test's database is terminated three
 * times, 5 s apart, while two worker processes run a 1,000-domain DNS change against the Cloudflare simulator.
 * Every worker is still alive at the end, the run completes, and no zone is written twice. PostgreSQL only, with
 * the same rules as jobs/fault.test.ts: with CI set it fails when the server is unreachable, never skips.
 */
const BASE_URL = realPostgresUrl('jobs/connection-cut.test.ts', 'the connection-cutting test needs');

const APP_KEY = crypto.randomBytes(32).toString('hex');
const DOMAINS = 1000;
const ACCOUNTS = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!BASE_URL)('workers survive the database going away (PostgreSQL)', () => {
  let database: Database;
  let admin: Database;
  let c: Container;
  let dbUrl: string;
  let dbName: string;
  let drop: (() => Promise<void>) | undefined;
  let sim: Awaited<ReturnType<typeof startCloudflareSim>>;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-cut-'));
  const env = () => ({
    CLOUDFLARE_API_URL: sim.url,
    // 150 requests per 5 s per account: the run (2 requests a domain) lasts about 20 s on an idle machine, long
    // enough for the three cuts, and the whole test stays near a minute.
    CLOUDFLARE_BUDGET_PER_5_MIN: '150',
    CLOUDFLARE_BUDGET_WINDOW_SECONDS: '5',
    JOB_HEARTBEAT_SECONDS: '2',
    JOB_TAKEOVER_SECONDS: '10',
  });
  const processes = faultProcesses({ dbUrl: () => dbUrl, dataDir, appKey: APP_KEY, env });

  beforeAll(async () => {
    sim = await startCloudflareSim();
    ({ database, url: dbUrl, drop } = await createFaultDatabase(BASE_URL!));
    dbName = new URL(dbUrl).pathname.slice(1);
    admin = await openPostgres(BASE_URL!, { max: 1 });
    c = await startWatcher({ database, dbUrl, dataDir, appKey: APP_KEY, env: env() });
  }, 120_000);

  afterAll(async () => {
    processes.killAll();
    await c?.close().catch(() => undefined);
    await admin?.close().catch(() => undefined);
    await drop?.();
    await sim?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Terminates every backend of the test's database (the watcher's, the workers', pg-boss's). */
  const cut = async () => {
    const r = (await admin.bossDb.executeSql(
      'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [dbName],
    )) as { rows: { n: number }[] };
    return r.rows[0]!.n;
  };

  it('three cuts of every connection during a 1,000-domain run: workers live, the run completes, no zone written twice', async () => {
    const actor = systemActor('connection-cut-test');
    const clouds: { accountId: string; cloudId: string }[] = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const email = `cut-${a}@example.com`;
      const token = `cut-token-${a}-${crypto.randomBytes(8).toString('hex')}`;
      const { accountId } = sim.addAccount({ email, token });
      const cloud = await c.services.clouds.create({ email, token } as never, actor);
      clouds.push({ accountId, cloudId: cloud._id });
    }
    const zoneOf = new Map<string, string>();
    const rows = Array.from({ length: DOMAINS }, (_, i) => {
      const acc = clouds[i % ACCOUNTS]!;
      const name = `cut-${i}.com`;
      const { zoneId } = sim.addZone(acc.accountId, name, { ssl: 'full' });
      sim.addDnsRecord(zoneId, { type: 'A', name, content: '192.0.2.10', ttl: 1, proxied: true });
      zoneOf.set(zoneId, name);
      return {
        domainName: name,
        domainNameUnicode: name,
        status: 'active' as const,
        cloudId: acc.cloudId,
        cloudZoneId: zoneId,
      };
    });
    const inserted = await database.db.insert(domains).values(rows).returning({ id: domains.id });
    const ids = inserted.map((r) => r.id);
    // Every write the simulator answers, per zone.
    const writes = new Map<string, number>();
    sim.afterRequest((e) => {
      if (e.method === 'GET' || e.status >= 400) return;
      const zone = /\/zones\/([0-9a-f]+)\//.exec(e.path)?.[1];
      if (zone) writes.set(zone, (writes.get(zone) ?? 0) + 1);
    });

    const workers: ChildProcess[] = await Promise.all([processes.start('worker'), processes.start('worker')]);
    const exits: string[] = [];
    for (const w of workers) {
      let err = '';
      w.stderr!.on('data', (d) => (err = (err + String(d)).slice(-2000)));
      w.on('exit', (code, signal) => exits.push(`${w.pid}: ${code ?? signal} ${err}`));
    }

    const plan = await c.services.fleet.create(
      { selection: { ids }, action: { kind: 'dns_set', type: 'A', name: '@', content: '198.51.100.20' } },
      actor,
    );
    const waitPlan = async (states: string[], timeoutMs: number) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        // The watcher's own reads meet the cuts too: one failed read is retried on the next round.
        const p = await c.services.fleet.get(plan._id).catch(() => undefined);
        if (p && states.includes(p.state)) return p;
        if (Date.now() > until)
          throw new Error(`plan still ${p?.state} after ${timeoutMs} ms: ${JSON.stringify(p?.run)}`);
        await sleep(200);
      }
    };
    const planned = await waitPlan(['planned', 'failed'], 60_000);
    expect(planned.counts.change).toBe(DOMAINS);

    await c.services.fleet.run(plan._id, actor);
    // The cuts fall inside the run: the first once it has changed some domains.
    await (async () => {
      for (let i = 0; i < 300; i++) {
        if (writes.size >= 50) return;
        await sleep(100);
      }
    })();
    const cutCounts: number[] = [];
    for (let i = 0; i < 3; i++) {
      if (i) await sleep(5000);
      cutCounts.push(await cut());
    }
    // Each cut ended the workers' connections too, not only the watcher's, and fell inside the run.
    for (const n of cutCounts) expect(n).toBeGreaterThan(2);
    expect(writes.size, 'zones changed by the last cut').toBeLessThan(DOMAINS);

    const done = await waitPlan(['completed', 'completed_with_failures', 'failed', 'cancelled', 'paused'], 150_000);
    expect(exits, 'worker processes that exited').toEqual([]);
    for (const w of workers) expect(w.exitCode, `worker ${w.pid}`).toBeNull();
    expect(done.state, JSON.stringify(done.run)).toBe('completed');
    expect(done.run.failed).toBe(0);
    expect(sim.state.zones.size).toBeGreaterThanOrEqual(DOMAINS);
    const twice = [...writes].filter(([, n]) => n > 1).map(([z, n]) => `${zoneOf.get(z)} ×${n}`);
    expect(twice, 'zones written more than once').toEqual([]);
    expect(writes.size).toBe(DOMAINS);
  }, 240_000);
});

if (!BASE_URL) {
  describe('workers survive the database going away (skipped on PGlite)', () => {
    it.skip('needs PostgreSQL: PGlite lives inside one process, there is no connection to cut', () => {});
  });
}
