import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { fillPlaceholders, type ExtractTablesWithRelations } from 'drizzle-orm';
import * as schema from './schema/index.ts';
import type { PgliteLike } from './pglite-worker-client.ts';
import { isConnectionError } from './pg-errors.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Repository methods take either the database or a transaction. */
export type Executor = Db | Tx;

export type Database = {
  db: Db;
  driver: 'pglite' | 'postgres';
  migrate(): Promise<void>;
  /** Plain SQL for tooling and tests. */
  exec(sqlText: string): Promise<void>;
  /** The raw executor pg-boss runs on (its `db` adapter), over this same pool or PGlite instance. */
  bossDb: BossDb;
  /** The pool's connections now (PostgreSQL); PGlite is one connection inside the process. */
  poolStats(): { max: number; total: number; idle: number; waiting: number };
  /**
   * LISTEN on a channel: `onMessage` gets each NOTIFY's payload. `onState(false)` says notifications may be
   * missed (the listening connection is down) until the next `onState(true)`. Returns a stop function.
   */
  listen(
    channel: string,
    onMessage: (payload: string) => void,
    onState?: (up: boolean) => void,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
};

/** Reads a named statement's rows as arrays of column values (see `preparedArrays`). */
type ArrayReader = (name: string, text: string, params: unknown[]) => Promise<unknown[][]>;
const arrayReaders = new WeakMap<Db, ArrayReader>();
// Dates and timestamps stay text, as drizzle's own readers leave them (its columns decode them).
const RAW_TEXT_OIDS = [1082, 1114, 1184, 1186, 1115, 1182, 1185, 1187, 1231] as const;

/**
 * A select built with drizzle, run by the driver with no mapping: rows as arrays in the order of the select's
 * fields, prepared under `name` (PostgreSQL) and read in array mode by either driver. For the hottest reads
 * only (a domains list page): drizzle's own mapping of each field of each row cost a fifth of such a request's
 * time in the process (decision 057). The caller maps by position; values are what the driver parses (numbers,
 * booleans, json) and text for dates and timestamps.
 */
export function preparedArrays(
  db: Db,
  name: string,
  query: { toSQL(): { sql: string; params: unknown[] } },
): { execute(values?: Record<string, unknown>): Promise<unknown[][]> } {
  const read = arrayReaders.get(db);
  if (!read) throw new Error('preparedArrays: not a database opened by openDatabase');
  const { sql: text, params } = query.toSQL();
  return { execute: (values = {}) => read(name, text, fillPlaceholders(params, values)) };
}

/** pg-boss's custom database adapter: one statement with values, or several without. */
export type BossDb = { executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * DATA_DIR holds the embedded database (password and session hashes, sealed secrets) and the app key: only the
 * service's user may read it. Creates it 0700, and on every start sets directories below it to 0700 and files to
 * 0600, so files left with looser modes by an older version or a copy are fixed. New files follow the umask
 * set here (077), since PGlite creates its files with mode 0666.
 */
export function secureDataDir(dir: string) {
  try {
    process.umask(0o077);
  } catch {
    // Worker threads cannot change the umask; the chmod walk below still applies.
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  tightenModes(dir);
}

/** Directories to 0700 and files to 0600 below `dir`, without following links (their targets may be elsewhere). */
export function tightenModes(dir: string) {
  const walk = (p: string, depth: number) => {
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o777) !== 0o700) fs.chmodSync(p, 0o700);
      if (depth > 32) return;
      for (const name of fs.readdirSync(p)) walk(path.join(p, name), depth + 1);
    } else if (st.isFile() && (st.mode & 0o777) !== 0o600) {
      fs.chmodSync(p, 0o600);
    }
  };
  walk(dir, 0);
}

/**
 * Where PGlite runs: `worker`, a worker thread of its own (statements run while this thread serves HTTP; the
 * default, decision 052), or `main`, this thread (every statement blocks it for its length).
 */
export type PgliteThread = 'worker' | 'main';

export type PgliteOptions = {
  thread?: PgliteThread;
  /**
   * Told once if the worker thread dies while in use: every statement then fails. The server exits on it (a
   * restart recovers: jobs are durable); without it the failure only shows as failed statements.
   */
  onFailure?: (err: Error) => void;
  /**
   * Start from this data directory (a `migratedPgliteImage()`), in memory and on this thread only: the tests'
   * databases, each a copy of one migrated in the run's global set-up rather than made and migrated anew.
   */
  image?: Blob;
};

/** An in-memory PGlite, migrated, dumped as a data directory image (a tarball) for `PgliteOptions.image`. */
export async function migratedPgliteImage(): Promise<Blob> {
  const database = await openPglite(undefined, { thread: 'main' });
  await database.migrate();
  const image = await dumpOf.get(database)!();
  await database.close();
  return image;
}
const dumpOf = new WeakMap<Database, () => Promise<Blob>>();

export async function openPglite(dataDir: string | undefined, opts: PgliteOptions = {}): Promise<Database> {
  const { drizzle } = await import('drizzle-orm/pglite');
  if (dataDir) secureDataDir(dataDir);
  let client: PgliteLike;
  let migrateIn: () => Promise<void>;
  if (opts.image && (dataDir || opts.thread !== 'main'))
    throw new Error('openPglite: an image opens in memory, on this thread');
  let dump: (() => Promise<Blob>) | undefined;
  if ((opts.thread ?? 'worker') === 'worker') {
    const { PgliteWorkerClient } = await import('./pglite-worker-client.ts');
    const remote = await PgliteWorkerClient.start(dataDir, opts.onFailure);
    client = remote;
    migrateIn = () => remote.migrate(MIGRATIONS_DIR);
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    const local = await PGlite.create({ dataDir, extensions: { pg_trgm }, loadDataDir: opts.image });
    client = local as unknown as PgliteLike;
    dump = () => local.dumpDataDir('none') as Promise<Blob>;
    migrateIn = () => migrate(drizzle(local, { schema }), { migrationsFolder: MIGRATIONS_DIR });
  }
  // drizzle's PGlite dialect over either: it calls query(text, params, options) and transaction(cb) only.
  const db = drizzle(client as unknown as import('@electric-sql/pglite').PGlite, { schema }) as unknown as Db;
  // PGlite writes its files with mode 0666 whatever the umask: tighten them after it starts, after migrations,
  // every few minutes for files created since, and on close. The 0700 directory already keeps others out.
  const tighten = () => {
    if (!dataDir) return;
    try {
      tightenModes(dataDir);
    } catch {
      // A file removed mid-walk (PGlite recycles WAL segments); the next pass catches up.
    }
  };
  tighten();
  const timer = dataDir ? setInterval(tighten, 5 * 60_000) : undefined;
  timer?.unref();
  const boss = trackedBossDb(pgliteBossDb(client));
  const rawText = Object.fromEntries(RAW_TEXT_OIDS.map((oid) => [oid, (v: string) => v]));
  arrayReaders.set(db, async (_name, text, params) => {
    const res = await client.query<unknown[]>(text, params, { rowMode: 'array', parsers: rawText });
    return res.rows;
  });
  const database: Database = {
    db,
    driver: 'pglite',
    migrate: async () => {
      await migrateIn();
      tighten();
    },
    exec: async (q) => {
      await client.exec(q);
    },
    bossDb: boss.db,
    poolStats: () => ({ max: 1, total: 1, idle: 1, waiting: 0 }),
    // One embedded connection, one process: every write goes through it, so nothing is ever missed.
    listen: async (channel, onMessage, onState) => {
      const stop = await client.listen(channel, (payload) => onMessage(payload));
      onState?.(true);
      return stop;
    },
    close: async () => {
      clearInterval(timer);
      await boss.settle();
      await client.close();
      tighten();
    },
  };
  if (dump) dumpOf.set(database, dump);
  return database;
}

/** How long closing the database waits for pg-boss's statements already sent. */
const BOSS_SETTLE_MS = 5_000;

/**
 * pg-boss records a job's end (complete, fail) without awaiting it (its manager's onFetch), so the job engine's
 * stop can return while that statement is still on its way; closing the database under it leaves pg-boss's own
 * promise rejected and unhandled. The database's close waits for the statements already sent (bounded), and a
 * statement pg-boss sends once the close has begun is not sent and never answered. The job whose end it would
 * have recorded stays active, and pg-boss runs it again when it expires, as after a killed process.
 */
export function trackedBossDb(inner: BossDb): { db: BossDb; settle(): Promise<void> } {
  const inFlight = new Set<Promise<unknown>>();
  let closing = false;
  return {
    db: {
      executeSql(text, values) {
        // Never answered: pg-boss reads an answer's rows in its own way per statement, and no caller awaits these.
        if (closing) return new Promise(() => undefined);
        const p = inner.executeSql(text, values);
        inFlight.add(p);
        const done = () => inFlight.delete(p);
        p.then(done, done);
        return p;
      },
    },
    async settle() {
      closing = true;
      if (!inFlight.size) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((r) => (timer = setTimeout(r, BOSS_SETTLE_MS))),
      ]);
      clearTimeout(timer);
    },
  };
}

/**
 * PGlite has one connection and no multi-statement extended queries: pg-boss's parameterless scripts
 * (schema set-up, maintenance in BEGIN … COMMIT) go through exec, the rest through query. A script that
 * fails inside its BEGIN would leave the only connection in an aborted transaction, so it is rolled back.
 */
function pgliteBossDb(client: Pick<PgliteLike, 'query' | 'exec'>): BossDb {
  return {
    async executeSql(text, values) {
      if (values && values.length) {
        const r = await client.query<Record<string, unknown>>(text, values);
        return { rows: r.rows };
      }
      try {
        const results = await client.exec(text);
        return { rows: (results.at(-1)?.rows ?? []) as Record<string, unknown>[] };
      } catch (err) {
        if (/\bBEGIN\b/i.test(text)) await client.exec('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
  };
}

/** Held for a run of migrations on PostgreSQL, so processes starting together migrate one after another. */
export const MIGRATIONS_LOCK_KEY = 7_261_803_422;

/** How long a read whose connection was cut waits before its one retry on a new connection. */
const READ_RETRY_DELAY_MS = 200;

/** A statement that only reads: safe to send again on a new connection when its own was cut. */
export function isRetryableRead(text: string): boolean {
  return (
    /^\s*select\b/i.test(text) &&
    !/\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b|\b(nextval|setval|pg_advisory\w*|pg_notify|pg_terminate_backend|set_config)\s*\(/i.test(
      text,
    )
  );
}

export type PostgresOptions = {
  max?: number;
  /**
   * Told when a connection is lost (PostgreSQL restarted, its backends terminated, a network blip): the pool
   * replaces it; statements that were on it fail (a read is retried once). Never throws; the process goes on.
   */
  onConnectionLost?: (err: Error) => void;
};

export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Database> {
  const pg = (await import('pg')).default;
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const { migrate } = await import('drizzle-orm/node-postgres/migrator');
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  const lost = (err: Error) => {
    try {
      opts.onConnectionLost?.(err);
    } catch {
      // A logger's own failure must not turn a handled loss into an unhandled one.
    }
  };
  // pg-pool listens for errors on idle clients only: a client checked out (a transaction between statements,
  // a statement on its way) whose connection is terminated would emit an unhandled 'error' and end the process.
  // Every client gets a listener of its own for its whole life; the statement on it still fails and says why.
  pool.on('connect', (client) => client.on('error', lost));
  pool.on('error', lost);
  // A read cut with its connection is sent once more on a new connection; anything else fails as it is (the
  // API answers 503, a job retries), since a write may have been applied before the cut.
  const poolQuery = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [config, values, cb] = args;
    if (typeof values === 'function' || typeof cb === 'function') return poolQuery(...args);
    const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text;
    if (!text || !isRetryableRead(text)) return poolQuery(...args);
    return poolQuery(...args).catch(async (err: unknown) => {
      if (!isConnectionError(err)) throw err;
      await new Promise((r) => setTimeout(r, READ_RETRY_DELAY_MS));
      return poolQuery(...args);
    });
  };
  const db = drizzle(pool, { schema }) as unknown as Db;
  const listeners = new Set<() => Promise<void>>();
  const boss = trackedBossDb({ executeSql: (text, values) => pool.query(text, values) });
  const rawTypes = {
    getTypeParser: (oid: number, format?: string) =>
      (RAW_TEXT_OIDS as readonly number[]).includes(oid)
        ? (v: string) => v
        : pg.types.getTypeParser(oid, format as 'text'),
  };
  arrayReaders.set(db, async (name, text, values) => {
    const res = await pool.query<unknown[]>({ name, text, values, rowMode: 'array', types: rawTypes });
    return res.rows;
  });
  return {
    db,
    driver: 'postgres',
    // One process at a time (an advisory lock held on the connection that migrates): any number of API and worker
    // processes may start together on a fresh database; the ones that wait find the migrations done.
    migrate: async () => {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATIONS_LOCK_KEY]);
        await migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS_DIR });
        await client.query('select pg_advisory_unlock($1)', [MIGRATIONS_LOCK_KEY]);
      } catch (err) {
        // The lock goes with the connection: drop it rather than return it to the pool still holding the lock.
        broken = err instanceof Error ? err : new Error(String(err));
        throw err;
      } finally {
        client.release(broken);
      }
    },
    exec: async (q) => {
      await pool.query(q);
    },
    bossDb: boss.db,
    poolStats: () => ({
      max: opts.max ?? 10,
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    listen: async (channel, onMessage, onState) => {
      const stop = await listenPostgres(pg, url, channel, onMessage, onState);
      listeners.add(stop);
      return async () => {
        listeners.delete(stop);
        await stop();
      };
    },
    close: async () => {
      await boss.settle();
      await Promise.all([...listeners].map((stop) => stop()));
      await pool.end();
    },
  };
}

/**
 * A connection of its own that LISTENs, reconnecting after a loss (1 s, doubling to 30 s). While it is down
 * the caller is told (onState(false)), since notifications sent meanwhile are lost.
 */
async function listenPostgres(
  pg: typeof import('pg').default,
  url: string,
  channel: string,
  onMessage: (payload: string) => void,
  onState?: (up: boolean) => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: import('pg').Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delay = 1000;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel) onMessage(n.payload ?? '');
    });
    const lost = () => {
      if (client !== c) return;
      client = undefined;
      onState?.(false);
      c.end().catch(() => undefined);
      if (!stopped) retry();
    };
    c.on('error', lost);
    c.on('end', lost);
    client = c;
    await c.connect();
    await c.query(`LISTEN ${pg.Client.prototype.escapeIdentifier(channel)}`);
    delay = 1000;
    onState?.(true);
  };
  let pending = false;
  const retry = () => {
    if (pending || stopped) return;
    pending = true;
    timer = setTimeout(() => {
      pending = false;
      connect().catch(() => {
        client?.end().catch(() => undefined);
        client = undefined;
        delay = Math.min(delay * 2, 30_000);
        retry();
      });
    }, delay);
    timer.unref();
  };
  onState?.(false);
  try {
    await connect();
  } catch {
    client?.end().catch(() => undefined);
    client = undefined;
    retry();
  }
  return async () => {
    stopped = true;
    clearTimeout(timer);
    const c = client;
    client = undefined;
    await c?.end().catch(() => undefined);
  };
}

export async function openDatabase(
  opts: { databaseUrl?: string; dataDir?: string } & PgliteOptions & Pick<PostgresOptions, 'onConnectionLost'>,
): Promise<Database> {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, { onConnectionLost: opts.onConnectionLost })
    : openPglite(opts.dataDir, { thread: opts.thread, onFailure: opts.onFailure });
}

/**
 * The log line for lost connections: a cut ends every connection of the pool at once, so the first loss is
 * logged and the others of the next `everyMs` are counted into the following line.
 */
export function connectionLossLogger(warn: (obj: object, msg: string) => void, everyMs = 5_000) {
  let last = 0;
  let quiet = 0;
  return (err: Error) => {
    const now = Date.now();
    if (now - last < everyMs) {
      quiet++;
      return;
    }
    last = now;
    warn(
      { err: { message: err.message, code: (err as { code?: string }).code }, alsoLost: quiet },
      'database connection lost; reconnecting',
    );
    quiet = 0;
  };
}
