/**
 * The dashboard's health summary at scale: the counts per check and state over `domain_health_checks`.
 *
 *   npm run bench:health-summary                    100,000 domains × 12 checks (PostgreSQL when DATABASE_URL is
 *   npm run bench:health-summary -- --domains 20000 set, in a scratch database dropped afterwards; else PGlite)
 *
 * Seeds the domains and their check rows with set-based SQL (every check in a state spread over ok, warning,
 * failing, unknown and na), then times the GROUP BY the summary used to run and the read of the kept counts
 * (`domain_health_counts`, decision 045) that replaced it, and says whether both give the same numbers. It prints
 * figures and never asserts a time.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { HEALTH_CHECK_KEYS } from '../packages/contract/src/health.ts';
import { openPglite, openPostgres, type Database } from '../apps/api/src/db/client.ts';
import { seedDomains } from './seed.ts';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const TOTAL = arg('domains', 100_000);
const RUNS = arg('runs', 5);
const log = (s: string) => process.stdout.write(`${s}\n`);

async function open(url: string | undefined): Promise<{ database: Database; label: string; drop(): Promise<void> }> {
  if (!url) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-bench-'));
    const database = await openPglite(path.join(dir, 'pgdata'));
    return {
      database,
      label: 'PGlite',
      drop: async () => {
        await database.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `fd_bench_${crypto.randomBytes(5).toString('hex')}`;
  const admin = await openPostgres(url, { max: 1 });
  await admin.exec(`CREATE DATABASE ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const database = await openPostgres(u.toString(), { max: 2 });
  return {
    database,
    label: `PostgreSQL (scratch database ${name})`,
    drop: async () => {
      await database.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

const rowsOf = <T>(res: unknown) => (res as { rows: T[] }).rows;

async function time<T>(fn: () => Promise<T>) {
  const ms: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    last = await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, max: ms[ms.length - 1]!, last: last! };
}

async function main() {
  const db = await open(process.env.DATABASE_URL);
  try {
    await db.database.migrate();
    log(`Health summary at ${TOTAL.toLocaleString('en')} domains on ${db.label}`);
    await seedDomains(db.database, TOTAL, log);
    const keys = HEALTH_CHECK_KEYS.map((k) => `'${k}'`).join(',');
    const t0 = performance.now();
    await db.database.exec(`
      insert into domain_health_checks (domain_id, check_key, state, observed, expected, since, last_run)
      select d.id, k.key,
        (array['ok','ok','ok','ok','ok','warning','failing','unknown','na','na'])[1 + (d.domain_no + k.i) % 10],
        'observed', 'expected', now(), now()
      from domains d, unnest(array[${keys}]) with ordinality k(key, i)`);
    await db.database.exec('vacuum analyze');
    const [{ n }] = rowsOf<{ n: number }>(
      await db.database.db.execute(sql`select count(*)::int as n from domain_health_checks`),
    );
    log(`  seeded ${n.toLocaleString('en')} check rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const groupBy = await time(async () =>
      rowsOf<{ check: string; state: string; n: number }>(
        await db.database.db.execute(
          sql`select check_key as check, state, count(*)::int as n from domain_health_checks group by check_key, state`,
        ),
      ),
    );
    const kept = await time(async () =>
      rowsOf<{ check: string; state: string; n: number }>(
        await db.database.db.execute(
          sql`select check_key as check, state, n::int as n from domain_health_counts where n <> 0`,
        ),
      ),
    );
    const key = (rows: { check: string; state: string; n: number }[]) =>
      JSON.stringify(rows.map((r) => `${r.check}:${r.state}=${r.n}`).sort());
    log(
      `  GROUP BY over domain_health_checks: median ${groupBy.median.toFixed(1)} ms, max ${groupBy.max.toFixed(1)} ms`,
    );
    log(`  kept counts (domain_health_counts): median ${kept.median.toFixed(2)} ms, max ${kept.max.toFixed(2)} ms`);
    log(`  same numbers: ${key(groupBy.last) === key(kept.last) ? 'yes' : 'NO'}`);
  } finally {
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
