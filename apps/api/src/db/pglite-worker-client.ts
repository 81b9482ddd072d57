import { Worker } from 'node:worker_threads';
import type { Results, Transaction } from '@electric-sql/pglite';

/**
 * The API thread's side of PGlite in a worker thread (pglite-worker.mjs, decision 052): the part of PGlite's
 * interface that drizzle's PGlite session, pg-boss's adapter and openPglite use, each call a message to the
 * worker. PGlite's semantics hold because PGlite itself runs there: one connection, and a transaction holds it
 * from BEGIN to COMMIT/ROLLBACK while other statements wait on PGlite's own mutex.
 */
export type PgliteLike = {
  query<T>(text: string, params?: unknown[], options?: QueryOptionsLike): Promise<Results<T>>;
  exec(text: string): Promise<Results[]>;
  transaction<T>(cb: (tx: TransactionLike) => Promise<T>): Promise<T>;
  listen(channel: string, cb: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
};
export type TransactionLike = Pick<Transaction, 'query' | 'exec' | 'rollback' | 'closed'>;
type QueryOptionsLike = {
  rowMode?: 'array' | 'object';
  paramTypes?: number[];
  parsers?: Record<number | string, (value: string, typeId: number) => unknown>;
  serializers?: unknown;
  blob?: unknown;
  onNotice?: unknown;
};

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };
type Reply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: Record<string, unknown> & { message: string; name: string } }
  | { notify: number; payload: string }
  | { ready: true };

/** Function-valued options cannot cross threads; drizzle's parsers only keep a type's text, which the worker redoes. */
const rawOidsCache = new WeakMap<object, number[]>();
const PROBE = '\u0001fleetdesk-probe';
function rawOids(parsers: QueryOptionsLike['parsers']): number[] | undefined {
  if (!parsers) return undefined;
  const cached = rawOidsCache.get(parsers);
  if (cached) return cached;
  const oids = Object.entries(parsers).map(([oid, parse]) => {
    if (parse(PROBE, Number(oid)) !== PROBE) {
      throw new Error(`PGlite in a worker thread: the parser for type ${oid} must keep the text (functions stay here)`);
    }
    return Number(oid);
  });
  rawOidsCache.set(parsers, oids);
  return oids;
}

/** An error as PGlite raised it: same message, name and fields (code, detail, constraint, …) for pg-errors.ts. */
function rebuildError(fields: Record<string, unknown> & { message: string; name: string }): Error {
  const err = new Error(fields.message) as Error & Record<string, unknown>;
  for (const [k, v] of Object.entries(fields)) if (k !== 'stack') err[k] = v;
  return err;
}

export class PgliteWorkerClient implements PgliteLike {
  #worker: Worker;
  #pending = new Map<number, Pending>();
  #listeners = new Map<number, (payload: string) => void>();
  #seq = 0;
  #txSeq = 0;
  #failure: Error | undefined;
  #closing = false;
  #onFailure: ((err: Error) => void) | undefined;

  /** The thread itself (tests end it to see a death handled). */
  get worker(): Worker {
    return this.#worker;
  }

  private constructor(worker: Worker, onFailure?: (err: Error) => void) {
    this.#worker = worker;
    this.#onFailure = onFailure;
  }

  /**
   * Starts the worker and resolves once PGlite is open there. `onFailure` is told once if the worker dies while in
   * use (an exception there, out of memory, exit): every call in flight and every later call then rejects.
   */
  static async start(dataDir: string | undefined, onFailure?: (err: Error) => void): Promise<PgliteWorkerClient> {
    const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), { workerData: { dataDir } });
    const client = new PgliteWorkerClient(worker, onFailure);
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) =>
        reject(new Error(`PGlite worker failed to start: ${err.message}`, { cause: err }));
      const onExit = (code: number) => reject(new Error(`PGlite worker exited with code ${code} while starting`));
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.once('message', (m: Reply) => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        if ('ready' in m) resolve();
        else reject(new Error('PGlite worker: unexpected first message'));
      });
    });
    client.#wire();
    return client;
  }

  #wire() {
    this.#worker.on('message', (m: Reply) => {
      if ('notify' in m) {
        this.#listeners.get(m.notify)?.(m.payload);
        return;
      }
      if (!('id' in m)) return;
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(rebuildError(m.error));
    });
    this.#worker.on('error', (err) => this.#fail(new Error(`PGlite worker failed: ${err.message}`, { cause: err })));
    this.#worker.on('exit', (code) => {
      this.#fail(
        this.#closing
          ? new Error('PGlite worker: the database is closed')
          : new Error(`PGlite worker exited unexpectedly (code ${code})`),
      );
    });
  }

  #fail(err: Error) {
    if (this.#failure) return;
    this.#failure = err;
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    if (!this.#closing) this.#onFailure?.(err);
  }

  #call<T>(msg: Record<string, unknown>): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = ++this.#seq;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        this.#worker.postMessage({ ...msg, id });
      } catch (err) {
        // A value that cannot be cloned (a function, a symbol): refused here, as PGlite would refuse it.
        this.#pending.delete(id);
        reject(err as Error);
      }
    });
  }

  #query<T>(tx: number | undefined, text: string, params?: unknown[], options?: QueryOptionsLike) {
    if (options?.serializers || options?.blob || options?.onNotice) {
      return Promise.reject(new Error('PGlite in a worker thread: serializers, blob and onNotice are not supported'));
    }
    let oids: number[] | undefined;
    try {
      oids = rawOids(options?.parsers);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return this.#call<Results<T>>({
      op: 'query',
      tx,
      text,
      params,
      options: options && { rowMode: options.rowMode, paramTypes: options.paramTypes, rawOids: oids },
    });
  }

  query<T>(text: string, params?: unknown[], options?: QueryOptionsLike): Promise<Results<T>> {
    return this.#query<T>(undefined, text, params, options);
  }

  exec(text: string): Promise<Results[]> {
    return this.#call<Results[]>({ op: 'exec', text });
  }

  /** PGlite's transaction: the callback's statements run inside it; a throw rolls it back and rethrows. */
  async transaction<T>(cb: (tx: TransactionLike) => Promise<T>): Promise<T> {
    const id = ++this.#txSeq;
    // Not waited for: the callback's first statement follows BEGIN at once and waits for it in the worker, one
    // round trip fewer while the transaction holds the only connection.
    const opened = this.#call({ op: 'begin', tx: id });
    opened.catch(() => undefined);
    let closed = false;
    const check = () => {
      if (closed) throw new Error('Transaction is closed');
    };
    const tx = {
      query: async <R>(text: string, params?: unknown[], options?: QueryOptionsLike) => {
        check();
        return this.#query<R>(id, text, params, options);
      },
      exec: async (text: string) => {
        check();
        return this.#call<Results[]>({ op: 'exec', tx: id, text });
      },
      rollback: async () => {
        check();
        closed = true;
        await this.#call({ op: 'end', tx: id, commit: false });
      },
      get closed() {
        return closed;
      },
    } as TransactionLike;
    let result: T;
    try {
      result = await cb(tx);
    } catch (err) {
      // BEGIN failed: that is the error (the callback's statements failed for it).
      await opened;
      if (!closed) {
        closed = true;
        await this.#call({ op: 'end', tx: id, commit: false });
      }
      throw err;
    }
    await opened;
    if (!closed) {
      closed = true;
      await this.#call({ op: 'end', tx: id, commit: true });
    }
    return result;
  }

  async listen(channel: string, cb: (payload: string) => void): Promise<() => Promise<void>> {
    const lid = ++this.#seq;
    this.#listeners.set(lid, cb);
    try {
      await this.#call({ op: 'listen', channel, lid });
    } catch (err) {
      this.#listeners.delete(lid);
      throw err;
    }
    return async () => {
      if (!this.#listeners.delete(lid)) return;
      await this.#call({ op: 'unlisten', lid });
    };
  }

  /** drizzle's PGlite migrator, run in the worker against the same connection. */
  async migrate(folder: string): Promise<void> {
    await this.#call({ op: 'migrate', folder });
  }

  /** Closes PGlite (its files synced), then ends the worker. Calls after this reject. */
  async close(): Promise<void> {
    if (this.#failure) return;
    try {
      await this.#call({ op: 'close' });
    } finally {
      this.#closing = true;
      await this.#worker.terminate();
    }
  }
}
