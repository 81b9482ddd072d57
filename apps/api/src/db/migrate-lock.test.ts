import crypto from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { realPostgresUrl } from '../test/real-postgres.ts';
import { z } from 'zod';
import { openPostgres, type Database } from './client.ts';
import { createJobEngine } from '../jobs/engine.ts';
import { createJobRegistry, defineJob } from '../jobs/registry.ts';
import { createJobsRepository } from '../modules/jobs/jobs.repository.ts';

/**
 * Processes starting together on a fresh database (`docker compose up` starts the API and the workers at once)
 * migrate one after another under an advisory lock: none fails on the others' half-done migrations. PostgreSQL
 * only (PGlite belongs to one process); the same rules for CI as jobs/fault.test.ts.
 */
const BASE_URL = realPostgresUrl('db/migrate-lock.test.ts', 'concurrent migrations need');

describe.skipIf(!BASE_URL)('migrations on PostgreSQL', () => {
  const opened: Database[] = [];
  let admin: Database | undefined;
  let name = '';

  afterAll(async () => {
    await Promise.all(opened.map((d) => d.close().catch(() => undefined)));
    if (name) await admin?.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin?.close();
  });

  it('six processes starting on a fresh database at the same moment: all migrate (once) and start their job engines', async () => {
    admin = await openPostgres(BASE_URL!, { max: 1 });
    name = `fd_test_${crypto.randomBytes(6).toString('hex')}`;
    await admin.exec(`CREATE DATABASE ${name}`);
    const u = new URL(BASE_URL!);
    u.pathname = `/${name}`;
    // Each its own pool, as separate processes have.
    for (let i = 0; i < 6; i++) opened.push(await openPostgres(u.toString(), { max: 2 }));
    const results = await Promise.allSettled(opened.map((d) => d.migrate()));
    const failed = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason?.message ?? r.reason)] : []));
    expect(failed).toEqual([]);
    const applied = (await opened[0]!.bossDb.executeSql(
      'select count(*)::int as n from drizzle.__drizzle_migrations',
    )) as { rows: { n: number }[] };
    const journal = (await import('./migrations/meta/_journal.json', { with: { type: 'json' } })).default as {
      entries: unknown[];
    };
    expect(applied.rows[0]!.n).toBe(journal.entries.length);
    // The lock is let go: a later start migrates (nothing to do) without waiting.
    await opened[0]!.migrate();

    // Then each starts its job engine at the same moment: pg-boss's schema and the same queues, created at once.
    const kinds = Array.from({ length: 6 }, (_, i) =>
      defineJob({
        kind: `test.together-${i}`,
        area: 'cnv:domains',
        payload: z.object({}),
        retry: { limit: 0, delaySeconds: 0, backoff: false },
        timeoutSeconds: 30,
        handler: async () => ({}),
      }),
    );
    const engines = opened.map((d) =>
      createJobEngine({
        database: d,
        repo: createJobsRepository(d.db),
        registry: createJobRegistry(kinds),
        options: { workers: false },
      }),
    );
    const started = await Promise.allSettled(engines.map((e) => e.start()));
    await Promise.all(engines.map((e) => e.stop(false)));
    expect(started.flatMap((r) => (r.status === 'rejected' ? [String(r.reason?.message ?? r.reason)] : []))).toEqual(
      [],
    );
  }, 120_000);
});

if (!BASE_URL) {
  describe('migrations on PostgreSQL (skipped on PGlite)', () => {
    it.skip('needs PostgreSQL: PGlite belongs to one process', () => {});
  });
}
