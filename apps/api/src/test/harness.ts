import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../config.ts';
import { forgetCounts } from '../http/list-query.ts';
import { sessionsChanged } from '../lib/session-cache.ts';
import { openPglite, openPostgres, type Database } from '../db/client.ts';
import { createContainer, type Container } from '../container.ts';
import { buildApp } from '../app.ts';
import { hashPassword } from '../lib/passwords.ts';

/**
 * A freshly migrated database for one test file: PGlite in memory, or, when DATABASE_URL is set,
 * a new database on that server (dropped at the end), so files can run in parallel. Both start as a copy of the
 * database the run's global set-up migrated (test/global-setup.ts, decision 067); `migrate` then finds nothing
 * to do, and would apply what the copy lacked.
 */
export async function createTestDatabase(): Promise<{ database: Database; drop: () => Promise<void> }> {
  const { DATABASE_URL: url } = loadConfig(process.env, { dotenv: false });
  if (!url) {
    // PGlite on the test's own thread unless PGLITE_THREAD=worker is asked for (db/pglite-worker.test.ts covers the
    // worker): pg-boss records a job's end without awaiting it, and with the database in a worker thread that
    // statement can outlive a test app's close more often than the suite tolerates (an unhandled rejection).
    const thread = process.env.PGLITE_THREAD === 'worker' ? 'worker' : 'main';
    const database = await openPglite(undefined, { thread, image: thread === 'main' ? pgliteImage() : undefined });
    await database.migrate();
    return { database, drop: () => database.close() };
  }
  const name = `fd_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = await openPostgres(url, { max: 1 });
  const template = provided('pgTemplate');
  await admin.exec(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const database = await openPostgres(u.toString(), { max: 5 });
  await database.migrate();
  return {
    database,
    drop: async () => {
      await database.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

/** What the global set-up provided; nothing outside a vitest run (a script using the harness). */
function provided<K extends 'pgliteImage' | 'pgTemplate'>(key: K): string | null {
  try {
    return inject(key) ?? null;
  } catch {
    return null;
  }
}

let image: Blob | undefined;
function pgliteImage(): Blob | undefined {
  const file = provided('pgliteImage');
  if (!file) return undefined;
  image ??= new Blob([fs.readFileSync(file)]);
  return image;
}

const rowsOf = async <T>(database: Database, text: string) =>
  (await database.db.execute(sql.raw(text))) as unknown as { rows: T[] };

/**
 * What `reset` truncates: the tables a TRUNCATE of every table would change. That is each table holding rows or
 * whose identity sequence has moved, and each table with a TRUNCATE trigger (the counts, list versions and
 * session notices they write are then written as after a TRUNCATE of all); the others are already as it would
 * leave them. A TRUNCATE costs about the same per table, rows or none (on PostgreSQL each one scans the shared
 * buffers), and most tests touch a few of 55 tables (decision 067).
 */
async function tablesToEmpty(database: Database): Promise<string[]> {
  const { rows } = await rowsOf<{ name: string; truncateTrigger: boolean }>(
    database,
    `select c.relname as "name", exists (select 1 from pg_trigger t where t.tgrelid = c.oid and not t.tgisinternal
       and (t.tgtype & 32) <> 0) as "truncateTrigger"
     from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r'`,
  );
  const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const lit = (name: string) => `'${name.replace(/'/g, "''")}'`;
  const always = rows.filter((r) => r.truncateTrigger).map((r) => r.name);
  const probed = rows.filter((r) => !r.truncateTrigger);
  if (!probed.length) return always.map(q);
  const used = await rowsOf<{ name: string }>(
    database,
    [
      ...probed.map((r) => `select ${lit(r.name)} as "name" where exists (select 1 from ${q(r.name)})`),
      `select t.relname from pg_sequences ps
         join pg_class s on s.relname = ps.sequencename and s.relkind = 'S'
         join pg_namespace n on n.oid = s.relnamespace and n.nspname = ps.schemaname
         join pg_depend d on d.classid = 'pg_class'::regclass and d.objid = s.oid and d.deptype in ('a', 'i')
         join pg_class t on t.oid = d.refobjid
       where ps.schemaname = 'public' and ps.last_value is not null`,
    ].join(' union '),
  );
  return [...new Set([...always, ...used.rows.map((r) => r.name)])].map(q);
}

export type TestApp = {
  app: FastifyInstance;
  c: Container;
  config: Config;
  /** Every log line the app wrote, for tests that look for leaked secrets. */
  logs: string[];
  /** Empties every table, keeping the schema. */
  reset(): Promise<void>;
  close(): Promise<void>;
  /** Signs in a new user holding exactly these rules; returns the Authorization header value. */
  tokenFor(rules: string[], opts?: { username?: string; password?: string }): Promise<string>;
  login(username: string, password: string): Promise<string>;
  inject: FastifyInstance['inject'];
};

/**
 * Test files sign in and call far more often than a person: unless a test asks for the production limits, the
 * request rate limits are raised out of the way (the sign-in throttle keeps its defaults).
 */
export const TEST_RATE_LIMITS = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_ADDRESS_PER_MINUTE: '1000000',
  RATE_LIMIT_LOGIN_PER_MINUTE: '1000000',
  RATE_LIMIT_EXPENSIVE_PER_MINUTE: '1000000',
  RATE_LIMIT_TOKEN_PER_MINUTE: '1000000',
};

export async function createTestApp(
  env: Record<string, string> = {},
  opts: { productionRateLimits?: boolean } & Pick<
    NonNullable<Parameters<typeof createContainer>[1]>,
    'extraJobs' | 'jobOptions'
  > = {},
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-test-'));
  const limits = opts.productionRateLimits ? {} : TEST_RATE_LIMITS;
  const clean = { ...process.env };
  for (const k of Object.keys(clean)) if (k.startsWith('RATE_LIMIT_') || k.startsWith('LOGIN_')) delete clean[k];
  // The tests' receivers listen on loopback; tests of the refusal turn it off.
  const base = { DATA_DIR: dataDir, LOG_LEVEL: 'info', ALERT_ALLOW_PRIVATE_DESTINATIONS: '1' };
  const config = loadConfig({ ...clean, ...base, ...limits, ...env }, { dotenv: false });
  const { database, drop } = await createTestDatabase();
  const c = await createContainer(config, { database, extraJobs: opts.extraJobs, jobOptions: opts.jobOptions });
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const app = await buildApp(c, {
    logger: { level: 'info', stream, redact: { paths: ['req.headers.authorization'], censor: '[redacted]' } },
    webDist: null,
  });
  await app.ready();
  let seq = 0;

  const login = async (username: string, password: string) => {
    const res = await app.inject({ method: 'POST', url: '/auth/login', payload: { username, password } });
    if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
    return String(res.headers.authorization);
  };

  return {
    app,
    c,
    config,
    logs,
    inject: app.inject.bind(app),
    async reset() {
      const list = await tablesToEmpty(c.database);
      if (list.length) await c.database.exec(`TRUNCATE ${list.join(', ')} RESTART IDENTITY CASCADE`);
      // Sessions served from memory belong to the rows just removed.
      sessionsChanged(c.database);
      forgetCounts(c.database.db);
    },
    async close() {
      await app.close();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    login,
    async tokenFor(rules, opts = {}) {
      seq++;
      const username = opts.username ?? `user${seq}_${crypto.randomBytes(3).toString('hex')}`;
      const password = opts.password ?? 'correct horse battery';
      const role = await c.repos.roles.insert({ name: `role-${username}`, rules });
      const user = await c.repos.users.insert({
        username,
        name: username,
        email: `${username}@example.test`,
        passwordHash: await hashPassword(password),
      });
      await c.repos.users.setRoles(user.id, [role.id]);
      return login(username, password);
    },
  };
}
