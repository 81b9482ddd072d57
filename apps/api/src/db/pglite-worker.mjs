// The embedded database in a worker thread (decision 052): PGlite runs every statement synchronously on the thread
// that calls it, so here it has a thread of its own and the API thread keeps serving HTTP meanwhile. Plain
// JavaScript, so it loads the same way under tsx, vitest and plain node. The protocol (pglite-worker-client.ts):
//   { id, op: 'query', text, params, options, tx? }  → { id, ok, result }   (options: rowMode, paramTypes, rawOids)
//   { id, op: 'exec', text, tx? }                     → { id, ok, result }
//   { id, op: 'begin', tx }                           → { id, ok } once the transaction holds the connection
//     (its statements may follow at once: they wait for it here)
//   { id, op: 'end', tx, commit }                     → { id, ok } after COMMIT or ROLLBACK
//   { id, op: 'listen', channel, lid } / 'unlisten'   → { id, ok }; each NOTIFY posts { notify: lid, payload }
//   { id, op: 'migrate', folder } / 'close'           → { id, ok }
// Errors come back as { id, ok: false, error: { message, name, code, detail, constraint, … } }.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

if (!parentPort) throw new Error('pglite-worker.mjs runs as a worker thread');
const port = parentPort;

const keepText = (value) => value;
/** The parsers a query asked for are "keep the text" for these type ids (drizzle's own, checked on the API side). */
const parsersFor = (oids) => (oids?.length ? Object.fromEntries(oids.map((oid) => [oid, keepText])) : undefined);

/** Own fields of a PostgreSQL error that survive a message: strings and numbers only (not the query's params). */
function errorFields(err) {
  const out = { message: String(err?.message ?? err), name: err?.name ?? 'Error' };
  if (err && typeof err === 'object') {
    for (const [k, v] of Object.entries(err)) {
      if (k === 'params' || k === 'queryOptions') continue;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
    }
  }
  return out;
}

const db = await PGlite.create({ dataDir: workerData?.dataDir ?? undefined, extensions: { pg_trgm } });

/** Open transactions by id: the PGlite transaction object and the function that lets its callback return. */
const txs = new Map();
const listeners = new Map();

const reply = (id, result) => {
  try {
    port.postMessage({ id, ok: true, result });
  } catch (err) {
    // A value that cannot cross threads fails this call, not the worker.
    fail(id, err);
  }
};
const fail = (id, err) => port.postMessage({ id, ok: false, error: errorFields(err) });

/** Where a statement runs: PGlite itself, or its open transaction (waiting for BEGIN if the message overtook it). */
async function target(msg) {
  if (msg.tx === undefined) return db;
  const t = txs.get(msg.tx);
  if (!t) throw new Error(`transaction ${msg.tx} is not open`);
  return (await t.ready).tx;
}

async function handle(msg) {
  switch (msg.op) {
    case 'query': {
      const o = msg.options ?? {};
      const r = await (
        await target(msg)
      ).query(msg.text, msg.params, {
        rowMode: o.rowMode,
        paramTypes: o.paramTypes,
        parsers: parsersFor(o.rawOids),
      });
      return { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows };
    }
    case 'exec': {
      const rs = await (await target(msg)).exec(msg.text);
      return rs.map((r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }));
    }
    case 'begin':
      return begin(msg);
    case 'end': {
      const t = txs.get(msg.tx);
      if (!t) throw new Error(`transaction ${msg.tx} is not open`);
      const { end, done } = await t.ready;
      end(msg.commit);
      // Answered when PGlite has run COMMIT or ROLLBACK (or failed to).
      return done;
    }
    case 'listen': {
      const stop = await db.listen(msg.channel, (payload) => port.postMessage({ notify: msg.lid, payload }));
      listeners.set(msg.lid, stop);
      return undefined;
    }
    case 'unlisten': {
      const stop = listeners.get(msg.lid);
      listeners.delete(msg.lid);
      await stop?.();
      return undefined;
    }
    case 'migrate': {
      const { drizzle } = await import('drizzle-orm/pglite');
      const { migrate } = await import('drizzle-orm/pglite/migrator');
      await migrate(drizzle(db), { migrationsFolder: msg.folder });
      return undefined;
    }
    case 'close':
      await db.close();
      return undefined;
    default:
      throw new Error(`unknown operation ${String(msg.op)}`);
  }
}

/**
 * PGlite's own transaction: it holds PGlite's transaction mutex from BEGIN to COMMIT/ROLLBACK, so statements sent
 * without this transaction's id wait for it, as they would in one thread. Registered at once, so the
 * transaction's first statements, sent right behind BEGIN without waiting for its answer, find it; resolves when
 * it is open.
 */
function begin(msg) {
  let end;
  const ended = new Promise((resolve) => (end = resolve));
  let opened;
  let openFailed;
  const ready = new Promise((resolve, reject) => {
    opened = resolve;
    openFailed = reject;
  });
  // Observed by every statement of this transaction and by 'end'; unobserved, a failed BEGIN is not "unhandled".
  ready.catch(() => undefined);
  txs.set(msg.tx, { ready });
  let isOpen = false;
  const done = db
    .transaction(async (tx) => {
      isOpen = true;
      opened({ tx, end, done });
      const commit = await ended;
      if (!commit && !tx.closed) await tx.rollback();
    })
    .finally(() => txs.delete(msg.tx));
  done.catch((err) => {
    if (!isOpen) openFailed(err);
  });
  return ready.then(() => undefined);
}

port.on('message', (msg) => {
  handle(msg).then(
    (result) => reply(msg.id, result),
    (err) => fail(msg.id, err),
  );
});
port.postMessage({ ready: true });
