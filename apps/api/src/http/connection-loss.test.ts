import crypto from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realPostgresUrl } from '../test/real-postgres.ts';
import { openPostgres, type Database } from '../db/client.ts';
import { installErrorHandler } from './error-handler.ts';

/**
 * A request whose statement loses its connection (issue 42): never a 500. Errors of a lost connection, as each
 * driver words them, answer 503 with Retry-After; on PostgreSQL a read cut mid-way is sent again once and
 * answers 200, and a write cut mid-way answers 503.
 */
async function appThrowing(err: unknown) {
  const app = Fastify({ logger: false });
  installErrorHandler(app);
  app.get('/x', async () => {
    throw err;
  });
  await app.ready();
  return app;
}

describe('a request whose database connection was lost', () => {
  const cases: [string, unknown][] = [
    [
      'terminated by an administrator (57P01)',
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    ],
    [
      'server crash (57P02)',
      Object.assign(new Error('terminating connection because of crash of another server process'), { code: '57P02' }),
    ],
    ['server starting (57P03)', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['connection failure (08006)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['no connection (08003)', Object.assign(new Error('connection does not exist'), { code: '08003' })],
    ['read ECONNRESET', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' })],
    ['terminated unexpectedly', new Error('Connection terminated unexpectedly')],
    [
      'wrapped by drizzle',
      Object.assign(new Error('Failed query: select 1'), { cause: new Error('Connection terminated unexpectedly') }),
    ],
  ];
  for (const [name, err] of cases) {
    it(`answers 503 with Retry-After: ${name}`, async () => {
      const app = await appThrowing(err);
      const res = await app.inject({ method: 'GET', url: '/x' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.json()).toMatchObject({ code: 'database_unavailable' });
      await app.close();
    });
  }

  it('leaves other errors as they were (a 500)', async () => {
    const app = await appThrowing(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }));
    expect((await app.inject({ method: 'GET', url: '/x' })).statusCode).toBe(500);
    await app.close();
  });
});

const BASE_URL = realPostgresUrl('http/connection-loss.test.ts', 'cutting a statement’s connection needs');

describe.skipIf(!BASE_URL)('a statement cut mid-way on PostgreSQL', () => {
  let admin: Database;
  let database: Database;
  let app: FastifyInstance;
  let name = '';

  beforeAll(async () => {
    admin = await openPostgres(BASE_URL!, { max: 1 });
    name = `fd_test_${crypto.randomBytes(6).toString('hex')}`;
    await admin.exec(`CREATE DATABASE ${name}`);
    const u = new URL(BASE_URL!);
    u.pathname = `/${name}`;
    database = await openPostgres(u.toString(), { max: 3 });
    await database.exec('CREATE TABLE cut_writes (n integer)');
    app = Fastify({ logger: false });
    installErrorHandler(app);
    app.get('/read', async () => {
      const r = await database.db.execute(sql`select 42 as n, pg_sleep(0.5) is null as slept`);
      return { n: (r as unknown as { rows: { n: number }[] }).rows[0]!.n };
    });
    app.post('/write', async () => {
      await database.db.execute(sql`insert into cut_writes select 1 from pg_sleep(0.5)`);
      return { ok: true };
    });
    await app.ready();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await admin?.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin?.close();
  });

  /** Terminates the backend running the statement that mentions `marker`, once it runs. */
  const cutWhenRunning = async (marker: string) => {
    for (let i = 0; i < 200; i++) {
      const r = (await admin.bossDb.executeSql(
        `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
          where datname = $1 and state = 'active' and query like $2 and pid <> pg_backend_pid()`,
        [name, `%${marker}%`],
      )) as { rows: { n: number }[] };
      if (r.rows[0]!.n > 0) return;
      await new Promise((res) => setTimeout(res, 10));
    }
    throw new Error(`no statement with ${marker} ran`);
  };

  it('a read is sent again once on a new connection and answers 200', async () => {
    const [res] = await Promise.all([app.inject({ method: 'GET', url: '/read' }), cutWhenRunning('select 42')]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ n: 42 });
  });

  it('a write answers 503 with Retry-After, not a 500, and is not sent again', async () => {
    const [res] = await Promise.all([app.inject({ method: 'POST', url: '/write' }), cutWhenRunning('cut_writes')]);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    const rows = (await database.bossDb.executeSql('select count(*)::int as n from cut_writes')) as {
      rows: { n: number }[];
    };
    expect(rows.rows[0]!.n).toBe(0);
    // The pool goes on with new connections.
    expect((await app.inject({ method: 'GET', url: '/read' })).statusCode).toBe(200);
  });
});
