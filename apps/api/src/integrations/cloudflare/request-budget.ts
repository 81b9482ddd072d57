/**
 * A sliding-window request budget per key (Cloudflare allows 1,200 requests per 5 minutes per user or token).
 *
 * When the budget is spent the call fails at once with the wait the operator needs, rather than waiting:
 * console calls run inside an operator's HTTP request and jobs are retried by the queue, so holding a request
 * open for minutes would help neither.
 */
export interface RequestBudget {
  /** Counts one request for `key`, or returns how many ms remain until one is free (nothing is counted then). */
  take(key: string): { ok: true } | { ok: false; retryAfterMs: number };
}

export function createRequestBudget(opts: { requests: number; windowMs: number; now?: () => number }): RequestBudget {
  const now = opts.now ?? Date.now;
  const windows = new Map<string, number[]>();
  return {
    take(key) {
      const t = now();
      const since = t - opts.windowMs;
      const list = windows.get(key) ?? [];
      // Timestamps are appended in order, so the expired ones are at the front.
      let drop = 0;
      while (drop < list.length && (list[drop] ?? 0) <= since) drop++;
      if (drop > 0) list.splice(0, drop);
      if (list.length >= opts.requests) {
        windows.set(key, list);
        return { ok: false, retryAfterMs: Math.max(1, (list[0] ?? t) + opts.windowMs - t) };
      }
      list.push(t);
      windows.set(key, list);
      return { ok: true };
    },
  };
}
