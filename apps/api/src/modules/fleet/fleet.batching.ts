import { untilConnected } from '../../db/pg-errors.ts';
import type { PlanResult } from './fleet.actions.ts';

/**
 * Reads what a list of items needs a chunk ahead: asked for item i when it is not read yet, it reads items
 * i…i+chunk-1 in one call. Workers take a group's items in order, so one statement serves a chunk of them; what
 * was read is handed out once and forgotten (memory stays at about a chunk per group).
 */
export function readAhead<T extends { domainId: string | null }, D extends { _id: string }>(
  items: readonly T[],
  chunk: number,
  read: (ids: string[]) => Promise<D[]>,
): (i: number) => Promise<D | undefined> {
  const ahead = new Map<number, Promise<D | undefined>>();
  return (i) => {
    let mine = ahead.get(i);
    if (!mine) {
      const slice = items.slice(i, i + chunk);
      const all = read(slice.flatMap((it) => (it.domainId ? [it.domainId] : []))).then(
        (ds) => new Map(ds.map((d) => [d._id, d])),
      );
      const made = new Map<number, Promise<D | undefined>>();
      slice.forEach((it, k) => {
        if (ahead.has(i + k)) return;
        const one = all.then((m) => (it.domainId ? m.get(it.domainId) : undefined));
        // Its caller sees the failure; one never asked for must not be an unhandled rejection.
        one.catch(() => undefined);
        made.set(i + k, one);
        ahead.set(i + k, one);
      });
      // A failed read is forgotten, so that each of its items is read again when asked (after a lost connection).
      all.catch(() => {
        for (const [j, one] of made) if (ahead.get(j) === one) ahead.delete(j);
      });
      mine = ahead.get(i)!;
    }
    ahead.delete(i);
    return mine;
  };
}

/** Rows written per statement: the JSON of 200 results stays well under a megabyte. */
const WRITE_BATCH = 200;
/** A result waits at most this long to be written, so the plan page and its counts follow along. */
const WRITE_DELAY_MS = 200;

/**
 * Planned items' results written many at a time, in order, each batch again after a lost connection; `close`
 * writes what is left and answers the first failure, so a plan never reads "planned" with results unwritten.
 */
export function batchedWriter<R>(
  write: (rows: R[]) => Promise<void>,
  signal?: AbortSignal,
): { add(row: R): void; close(): Promise<void> } {
  let rows: R[] = [];
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!rows.length) return;
    const batch = rows;
    rows = [];
    chain = chain.then(() =>
      untilConnected(() => write(batch), { signal }).catch((err) => {
        failure ??= err;
      }),
    );
  };
  return {
    add(row) {
      rows.push(row);
      if (rows.length >= WRITE_BATCH) flush();
      else timer ??= setTimeout(flush, WRITE_DELAY_MS);
    },
    async close() {
      flush();
      await chain;
      if (failure) throw failure;
    },
  };
}

export type PlannedRow = PlanResult & { seq: number };
