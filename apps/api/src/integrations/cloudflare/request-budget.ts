/**
 * A sliding-window request budget per key (Cloudflare allows 1,200 requests per 5 minutes per user or token).
 *
 * When the budget is spent the call fails at once with the wait the operator needs, rather than waiting:
 * console calls run inside an operator's HTTP request and jobs are retried by the queue, so holding a request
 * open for minutes would help neither.
 *
 * Shares (decision 015): background work (a future fleet job) may use only the part of the window that is not
 * reserved for interactive calls, and one owner (an operator) may use at most `ownerShare` of the window, so
 * neither a bulk job nor one busy operator can leave every other operator of the cloud with errors.
 */
export type BudgetPriority = 'interactive' | 'background';

export interface BudgetTake {
  /** Default 'interactive'. */
  priority?: BudgetPriority;
  /** Who spends the request (an operator's user id); calls without an owner are not capped per owner. */
  owner?: string | null;
}

export type BudgetAnswer =
  { ok: true } | { ok: false; retryAfterMs: number; reason: 'window' | 'background_share' | 'owner_share' };

export interface RequestBudget {
  /** Counts one request for `key`, or returns how many ms remain until one is free (nothing is counted then). */
  take(key: string, opts?: BudgetTake): BudgetAnswer;
  /** Requests still free for `key` in the current window (for the metrics). */
  left(key: string): number;
}

export interface RequestBudgetOptions {
  requests: number;
  windowMs: number;
  /** Share of the window that background calls may not use. Default 0.3. */
  interactiveReserve?: number;
  /** Largest share of the window one owner may use. Default 0.5. */
  ownerShare?: number;
  now?: () => number;
}

interface Entry {
  t: number;
  background: boolean;
  owner: string | null;
}

export function createRequestBudget(opts: RequestBudgetOptions): RequestBudget {
  const now = opts.now ?? Date.now;
  const reserve = Math.min(1, Math.max(0, opts.interactiveReserve ?? 0.3));
  const ownerShare = Math.min(1, Math.max(0, opts.ownerShare ?? 0.5));
  // At least one request each, so a tiny budget (tests, demo) still lets every class through.
  const backgroundLimit = Math.max(1, Math.floor(opts.requests * (1 - reserve)));
  const ownerLimit = Math.max(1, Math.floor(opts.requests * ownerShare));
  const windows = new Map<string, Entry[]>();

  /** When the oldest of the entries matching `pick` leaves the window: then one more of that class is allowed. */
  const waitFor = (list: Entry[], t: number, pick: (e: Entry) => boolean): number => {
    const first = list.find(pick);
    return Math.max(1, (first?.t ?? t) + opts.windowMs - t);
  };

  return {
    take(key, o = {}) {
      const t = now();
      const since = t - opts.windowMs;
      const list = windows.get(key) ?? [];
      // Entries are appended in order, so the expired ones are at the front.
      let drop = 0;
      while (drop < list.length && (list[drop]?.t ?? 0) <= since) drop++;
      if (drop > 0) list.splice(0, drop);
      windows.set(key, list);
      if (list.length >= opts.requests) {
        return { ok: false, retryAfterMs: waitFor(list, t, () => true), reason: 'window' };
      }
      const background = o.priority === 'background';
      if (background && list.length >= backgroundLimit) {
        // The oldest entries leave first; the window gets below the background limit when enough of them have.
        const oldest = list[list.length - backgroundLimit];
        return {
          ok: false,
          retryAfterMs: Math.max(1, (oldest?.t ?? t) + opts.windowMs - t),
          reason: 'background_share',
        };
      }
      const owner = o.owner ?? null;
      if (owner !== null) {
        const mine = list.filter((e) => e.owner === owner);
        if (mine.length >= ownerLimit) {
          return { ok: false, retryAfterMs: waitFor(list, t, (e) => e.owner === owner), reason: 'owner_share' };
        }
      }
      list.push({ t, background, owner });
      return { ok: true };
    },
    left(key) {
      const since = now() - opts.windowMs;
      const used = (windows.get(key) ?? []).filter((e) => e.t > since).length;
      return Math.max(0, opts.requests - used);
    },
  };
}
