import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'vitest';
import type { FleetPlan } from '@fleetdesk/contract';
import { openPostgres, type Database } from '../db/client.ts';
import { realPostgresUrl } from '../test/real-postgres.ts';
import { checkFinished, client, kill9, killAll, start, startRun, useTakeoverSim } from './takeover-processes.ts';

/**
 * Killed work comes back (decision 039), on PostgreSQL: of two workers sharing the database, the one holding a fleet
 * run of 40 domains is killed with SIGKILL; the other takes the run back once its heartbeat is silent, carries on from
 * the first domain not done, and every domain is changed exactly once (counted at the Cloudflare simulator). The
 * same on PGlite, where the one process is started again: takeover-pglite.test.ts. The two are apart so that CI
 * runs each in the one of its two API runs whose database it uses (decision 083).
 */
describe('killed work comes back, with real processes', () => {
  const simOf = useTakeoverSim();

  const BASE_URL = realPostgresUrl('jobs/takeover.test.ts', 'the PostgreSQL takeover test needs');
  it.skipIf(!BASE_URL)(
    'PostgreSQL: of two workers, the one holding the run is killed; the other takes it back, each domain once',
    async () => {
      const sim = simOf();
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
        killAll();
        await db.close();
        await admin.exec(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
        await admin.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    600_000,
  );
});
