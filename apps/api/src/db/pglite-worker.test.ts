import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import PgBoss from 'pg-boss';
import { openDatabase, openPglite, type Database } from './client.ts';
import { PgliteWorkerClient } from './pglite-worker-client.ts';
import { isUniqueViolation, pgError } from './pg-errors.ts';
import { auditLog, brands } from './schema/index.ts';
import type { PgliteLike } from './pglite-worker-client.ts';

/**
 * PGlite in its worker thread (decision 052) keeps PGlite's semantics: drizzle's types, transactions that hold
 * the one connection, errors with their fields, LISTEN/NOTIFY, pg-boss through bossDb, and a worker that dies
 * makes calls fail rather than hang.
 */
let database: Database;
beforeAll(async () => {
  database = await openPglite(undefined, { thread: 'worker' });
  await database.migrate();
  await database.exec(
    `CREATE TABLE wt (id int PRIMARY KEY, at timestamptz, doc jsonb, big int8, tags text[], raw bytea, n numeric)`,
  );
}, 180_000);
afterAll(async () => {
  await database?.close();
});

type Rows<T> = { rows: T[] };
const rowsOf = async <T>(q: ReturnType<typeof sql>) => ((await database.db.execute(q)) as unknown as Rows<T>).rows;

describe('PGlite in a worker thread', () => {
  it('returns what drizzle returns in one thread: timestamps as text, jsonb, int8, arrays, bytea', async () => {
    // Parameters cross the thread as they are: a JSON text, an array, bytes.
    await (database.db as unknown as { $client: PgliteLike }).$client.query(
      `INSERT INTO wt VALUES (1, '2026-01-02 03:04:05+00', $1::jsonb, 9007199254740993, $2, $3, 1.50)`,
      [JSON.stringify({ a: [1, 'x'] }), ['a', 'b'], new Uint8Array([0, 255])],
    );
    const [row] = await rowsOf<Record<string, unknown>>(sql`SELECT * FROM wt WHERE id = 1`);
    // drizzle keeps timestamptz as PostgreSQL's text (its parsers are redone in the worker).
    expect(row).toMatchObject({ id: 1, at: '2026-01-02 03:04:05+00', doc: { a: [1, 'x'] }, tags: ['a', 'b'] });
    expect(row!.big).toBe(9007199254740993n);
    expect([...(row!.raw as Uint8Array)]).toEqual([0, 255]);
    expect(row!.n).toBe('1.50');
    // A typed select goes through drizzle's array row mode and its mapping.
    const [entry] = await database.db
      .insert(auditLog)
      .values({ action: 'test', entity: 'worker', details: { n: 1 } })
      .returning();
    const got = await database.db.select().from(auditLog);
    expect(got).toEqual([entry]);
    expect(entry!.at).toBeInstanceOf(Date);
    expect(entry!.details).toEqual({ n: 1 });
    expect(typeof entry!.auditNo).toBe('number');
  });

  it('commits a transaction, and rolls one back when its callback throws', async () => {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO wt (id) VALUES (10)`);
      await tx.execute(sql`INSERT INTO wt (id) VALUES (11)`);
    });
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO wt (id) VALUES (12)`);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    // A failed statement inside: rolled back, and the one connection is usable again afterwards.
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO wt (id) VALUES (13)`);
        await tx.execute(sql`INSERT INTO wt (id) VALUES (10)`);
      }),
    ).rejects.toThrow();
    // A nested transaction (a savepoint) rolled back alone.
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO wt (id) VALUES (14)`);
      await tx
        .transaction(async (inner) => {
          await inner.execute(sql`INSERT INTO wt (id) VALUES (15)`);
          inner.rollback();
        })
        .catch(() => undefined);
    });
    const ids = (await rowsOf<{ id: number }>(sql`SELECT id FROM wt WHERE id >= 10 ORDER BY id`)).map((r) => r.id);
    expect(ids).toEqual([10, 11, 14]);
  });

  it("brings a unique violation back with PostgreSQL's fields", async () => {
    await database.db.insert(brands).values({ name: 'Twice' });
    const err = await database.db
      .insert(brands)
      .values({ name: 'Twice' })
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    const fields = pgError(err);
    expect(fields?.code).toBe('23505');
    expect(fields?.constraint).toBe('brands_name_lower_uq');
    let cause = (err as { cause?: Record<string, unknown> }).cause;
    cause ??= err as Record<string, unknown>;
    expect(cause.detail).toMatch(/already exists/);
    expect(cause.table).toBe('brands');
  });

  it('runs concurrent transactions one after the other, and a plain statement waits for an open one', async () => {
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let opened!: () => void;
    const isOpen = new Promise<void>((r) => (opened = r));
    const a = database.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO wt (id) VALUES (20)`);
      events.push('a: inserted');
      opened();
      await gate;
      // Sent after B's BEGIN and the plain count below: still answered first, inside A.
      const inside = await tx.execute(sql`SELECT count(*)::int AS n FROM wt WHERE id IN (20, 21)`);
      events.push(`a: sees ${(inside as unknown as Rows<{ n: number }>).rows[0]!.n}`);
    });
    await isOpen;
    const b = database.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO wt (id) VALUES (21)`);
      events.push('b: inserted');
    });
    const plain = rowsOf<{ n: number }>(sql`SELECT count(*)::int AS n FROM wt WHERE id IN (20, 21)`).then((r) => {
      events.push(`plain: sees ${r[0]!.n}`);
    });
    // B's BEGIN and INSERT and the plain count reach the worker before A's next statement: were they let into the open
    // transaction, they would be answered first.
    release();
    await Promise.all([a, b, plain]);
    expect(events.slice(0, 2)).toEqual(['a: inserted', 'a: sees 1']);
    // B and the plain count ran only after A had committed (PGlite's order among waiters is its own).
    expect(events.slice(2)).toHaveLength(2);
    expect(events.slice(2)).toContain('b: inserted');
    expect(events.slice(2).find((e) => e.startsWith('plain'))).toMatch(/^plain: sees [12]$/);
  });

  it('delivers NOTIFY payloads to a listener until it stops', async () => {
    const got: string[] = [];
    let up = false;
    const stop = await database.listen(
      'wt_channel',
      (p) => got.push(p),
      (s) => (up = s),
    );
    expect(up).toBe(true);
    await database.db.execute(sql`SELECT pg_notify('wt_channel', 'one')`);
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_notify('wt_channel', 'two')`);
    });
    await database.exec('SELECT 1');
    await stop();
    await database.db.execute(sql`SELECT pg_notify('wt_channel', 'three')`);
    await database.exec('SELECT 1');
    expect(got).toEqual(['one', 'two']);
  });

  it('runs pg-boss through bossDb: its schema, a send and a fetch', async () => {
    const boss = new PgBoss({
      db: database.bossDb as PgBoss.Db,
      schema: 'pgboss_wt',
      migrate: true,
      supervise: false,
      schedule: false,
    });
    boss.on('error', () => undefined);
    await boss.start();
    try {
      await boss.createQueue('wt-queue');
      const id = await boss.send('wt-queue', { hello: 'worker' });
      expect(id).toBeTruthy();
      const [job] = await boss.fetch<{ hello: string }>('wt-queue');
      expect(job?.id).toBe(id);
      expect(job?.data).toEqual({ hello: 'worker' });
      await boss.complete('wt-queue', job!.id);
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
  }, 120_000);
});

describe('the worker thread ending', () => {
  it('rejects every call after close', async () => {
    const d = await openPglite(undefined, { thread: 'worker' });
    await d.exec('SELECT 1');
    await d.close();
    await expect(d.exec('SELECT 1')).rejects.toThrow(/closed/);
  }, 120_000);

  it('fails calls in flight and later ones when the worker dies, and says so once', async () => {
    const failures: Error[] = [];
    const client = await PgliteWorkerClient.start(undefined, (err) => failures.push(err));
    await client.query('SELECT 1');
    const inFlight = client.query('SELECT pg_sleep(0.2)');
    await client.worker.terminate();
    await expect(inFlight).rejects.toThrow(/exited unexpectedly/);
    await expect(client.query('SELECT 1')).rejects.toThrow(/exited unexpectedly/);
    await expect(client.transaction(async () => undefined)).rejects.toThrow(/exited unexpectedly/);
    expect(failures.map((e) => e.message)).toEqual([expect.stringMatching(/exited unexpectedly/)]);
    await client.close();
  }, 120_000);

  it("passes the worker's death to openDatabase's onFailure (the server exits on it)", async () => {
    const failures: Error[] = [];
    const d = await openDatabase({ thread: 'worker', onFailure: (err) => failures.push(err) });
    await d.exec('SELECT 1');
    await (d.db as unknown as { $client: PgliteWorkerClient }).$client.worker.terminate();
    await expect(d.exec('SELECT 1')).rejects.toThrow(/exited unexpectedly/);
    expect(failures).toHaveLength(1);
    await d.close();
  }, 120_000);

  it('refuses a parser it cannot recreate in the worker', async () => {
    await expect(
      (database.db as unknown as { $client: PgliteLike }).$client.query('SELECT 1', [], {
        parsers: { 23: (v: string) => Number(v) * 2 },
      }),
    ).rejects.toThrow(/must keep the text/);
  });
});
