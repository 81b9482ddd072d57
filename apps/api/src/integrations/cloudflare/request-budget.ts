/**
 * A sliding-window request budget per key (Cloudflare allows 1,200 requests per 5 minutes per user or token).
 *
 * When the budget is spent an operator's call fails at once with the wait the operator needs, rather than
 * waiting: it runs inside an HTTP request, and holding it open for minutes would not help. A fleet job's calls
 * (background, with `waitMs`) wait for their slot instead: that is how a job uses the whole background share
 * without ever meeting Cloudflare's 429 (decision 034).
 *
 * Shares (decision 015): background work (a future fleet job) may use only the part of the window that is not
 * reserved for interactive calls, and one owner (an operator) may use at most `ownerShare` of the window, so
 * neither a bulk job nor one busy operator can leave every other operator of the cloud with errors.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';

export type BudgetPriority = 'interactive' | 'background';

export interface BudgetTake {
  /** Default 'interactive'. */
  priority?: BudgetPriority;
  /** Who spends the request (an operator's user id); calls without an owner are not capped per owner. */
  owner?: string | null;
  /** Background work: wait up to this long for a slot rather than failing at once. */
  waitMs?: number;
  /**
   * Up to this many slots at once (default 1), as far as every share allows: a lane asks for the callers waiting
   * in it, so one transaction serves many requests (issue 48). At least one is granted when the answer is ok.
   */
  upTo?: number;
}

export type BudgetAnswer =
  | { ok: true; granted?: number }
  | { ok: false; retryAfterMs: number; reason: 'window' | 'background_share' | 'owner_share' };

/** How many slots one ask may take at once. */
export const BUDGET_TAKE_MAX = 32;
const wanted = (o: BudgetTake) => Math.max(1, Math.min(BUDGET_TAKE_MAX, Math.floor(o.upTo ?? 1)));

export interface RequestBudget {
  /** Counts one request for `key`, or returns how many ms remain until one is free (nothing is counted then). */
  take(key: string, opts?: BudgetTake): Promise<BudgetAnswer>;
  /** Requests still free for `key` in the current window (for the metrics). */
  left(key: string): Promise<number>;
}

export interface RequestBudgetOptions {
  requests: number;
  windowMs: number;
  /** Share of the window that background calls may not use. Default 0.3. */
  interactiveReserve?: number;
  /** Largest share of the window one owner may use. Default 0.5. */
  ownerShare?: number;
  /**
   * Added to the window when counting: a request is counted when it leaves and Cloudflare counts it when it
   * arrives, so a small margin keeps the two windows from overlapping by the network's jitter.
   */
  marginMs?: number;
  now?: () => number;
}

interface Entry {
  t: number;
  background: boolean;
  owner: string | null;
}

/** The limits every implementation applies the same way. */
export function budgetLimits(opts: RequestBudgetOptions) {
  const reserve = Math.min(1, Math.max(0, opts.interactiveReserve ?? 0.3));
  const ownerShare = Math.min(1, Math.max(0, opts.ownerShare ?? 0.5));
  // At least one request each, so a tiny budget (tests, demo) still lets every class through.
  const backgroundLimit = Math.max(1, Math.floor(opts.requests * (1 - reserve)));
  const ownerLimit = Math.max(1, Math.floor(opts.requests * ownerShare));
  return {
    backgroundLimit,
    ownerLimit,
    /**
     * How many slots an allowed ask gets, given the window's count `n` and the owner's `mine`. Several only while
     * the window stays at most half full after them: slots taken together are counted at one moment but reach
     * Cloudflare over a little while, which matters only near the ceiling, where each is taken as it leaves.
     */
    grantOf(o: BudgetTake, n: number, mine: number, background: boolean, owned: boolean): number {
      const want = wanted(o);
      const roomy =
        n + want <= opts.requests / 2 &&
        (!background || n + want <= backgroundLimit / 2) &&
        (!owned || mine + want <= ownerLimit / 2);
      return want > 1 && roomy ? want : 1;
    },
  };
}

/** The budget of one process, in memory (PGlite runs in one process; tests). */
export function createRequestBudget(opts: RequestBudgetOptions): RequestBudget {
  const now = opts.now ?? Date.now;
  const { backgroundLimit, ownerLimit, grantOf } = budgetLimits(opts);
  const span = opts.windowMs + Math.max(0, opts.marginMs ?? 0);
  const windows = new Map<string, Entry[]>();

  /** When the oldest of the entries matching `pick` leaves the window: then one more of that class is allowed. */
  const waitFor = (list: Entry[], t: number, pick: (e: Entry) => boolean): number => {
    const first = list.find(pick);
    return Math.max(1, (first?.t ?? t) + span - t);
  };

  return {
    async take(key, o = {}) {
      const t = now();
      const since = t - span;
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
          retryAfterMs: Math.max(1, (oldest?.t ?? t) + span - t),
          reason: 'background_share',
        };
      }
      const owner = o.owner ?? null;
      let mine = 0;
      if (owner !== null) {
        mine = list.filter((e) => e.owner === owner).length;
        if (mine >= ownerLimit) {
          return { ok: false, retryAfterMs: waitFor(list, t, (e) => e.owner === owner), reason: 'owner_share' };
        }
      }
      const granted = grantOf(o, list.length, mine, background, owner !== null);
      for (let i = 0; i < granted; i++) list.push({ t, background, owner });
      return o.upTo === undefined ? { ok: true } : { ok: true, granted };
    },
    async left(key) {
      const since = now() - opts.windowMs;
      const used = (windows.get(key) ?? []).filter((e) => e.t > since).length;
      return Math.max(0, opts.requests - used);
    },
  };
}

/**
 * The budget shared through the database (issue 18, decision 034): every API process and worker that spends a
 * cloud's requests counts them in `cloudflare_budget_spend`, so together they stay under Cloudflare's limit.
 * Each take is one short transaction: an advisory lock on the key serialises takers of that key, old entries are
 * dropped, the window is counted, and the request is recorded only when every share allows it.
 * Times are each process's clock in ms; hosts are expected to keep their clocks in step (NTP).
 */
export function createSharedRequestBudget(database: Pick<Database, 'db'>, opts: RequestBudgetOptions): RequestBudget {
  const now = opts.now ?? Date.now;
  const { backgroundLimit, ownerLimit, grantOf } = budgetLimits(opts);
  const span = opts.windowMs + Math.max(0, opts.marginMs ?? 0);
  const rowsOf = (r: unknown) => ((r as { rows?: Record<string, unknown>[] }).rows ?? []) as Record<string, unknown>[];
  const num = (x: unknown, dflt: number) => (x === null || x === undefined ? dflt : Number(x));
  return {
    take(key, o = {}) {
      const bg = o.priority === 'background';
      const owner = o.owner ?? null;
      return database.db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 7))`);
        // The clock is read after the lock, so entries are recorded in time order per key.
        const t = now();
        const since = t - span;
        await tx.execute(sql`delete from cloudflare_budget_spend where key = ${key} and t <= ${since}`);
        const [w] = rowsOf(
          await tx.execute(sql`
            select count(*)::int as n, min(t) as first_t,
              count(*) filter (where owner = ${owner})::int as mine,
              min(t) filter (where owner = ${owner}) as mine_first
            from cloudflare_budget_spend where key = ${key}`),
        );
        const n = num(w?.n, 0);
        if (n >= opts.requests) {
          return { ok: false, retryAfterMs: Math.max(1, num(w?.first_t, t) + span - t), reason: 'window' };
        }
        if (bg && n >= backgroundLimit) {
          const [b] = rowsOf(
            await tx.execute(sql`select t from cloudflare_budget_spend where key = ${key}
              order by t desc offset ${backgroundLimit - 1} limit 1`),
          );
          return {
            ok: false,
            retryAfterMs: Math.max(1, num(b?.t, t) + span - t),
            reason: 'background_share',
          };
        }
        if (owner !== null && num(w?.mine, 0) >= ownerLimit) {
          return {
            ok: false,
            retryAfterMs: Math.max(1, num(w?.mine_first, t) + span - t),
            reason: 'owner_share',
          };
        }
        const granted = grantOf(o, n, num(w?.mine, 0), bg, owner !== null);
        await tx.execute(
          sql`insert into cloudflare_budget_spend (key, t, background, owner)
            select ${key}, ${t}, ${bg}, ${owner} from generate_series(1, ${granted})`,
        );
        return o.upTo === undefined ? { ok: true } : { ok: true, granted };
      });
    },
    async left(key) {
      const since = now() - span;
      const [w] = rowsOf(
        await database.db.execute(
          sql`select count(*)::int as n from cloudflare_budget_spend where key = ${key} and t > ${since}`,
        ),
      );
      return Math.max(0, opts.requests - num(w?.n, 0));
    },
  };
}

export interface BudgetLaneOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * How long slots taken for the callers waiting in line stay theirs (default 100 ms). They are counted when
   * taken, so they must be spent well inside the budget's margin; they are handed out at once, in line.
   */
  spareMs?: number;
}

/**
 * Background takers of one key wait in line (decision 054). Only the first in line asks the budget, sleeping
 * until the moment it was told a slot frees; once it has its slot the next asks at once. So a lane keeps as many
 * requests going as the budget allows, each sent as soon as its slot exists, without every waiting caller
 * polling the budget (on PostgreSQL each ask is a transaction behind the key's advisory lock) and without
 * callers that wake together crowding one freed slot. Each taker's `waitMs` bounds its whole wait, the time in
 * line included; interactive calls do not queue here (they fail at once with the wait).
 * Within one process; across processes the shared budget still decides every slot.
 * The first in line asks for as many slots as there are callers in line (up to BUDGET_TAKE_MAX) and leaves the
 * spare ones to those behind it, for `spareMs`: one transaction then serves many requests of a busy lane (issue 48),
 * while a lane of one asks for one, as before.
 */
export function createBudgetLanes(budget: RequestBudget, o: BudgetLaneOptions = {}) {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const spareMs = o.spareMs ?? 100;
  type Lane = { tail: Promise<void>; waiting: number; spare: number; spareUntil: number };
  const lanes = new Map<string, Lane>();
  return {
    async take(key: string, opts: BudgetTake = {}): Promise<BudgetAnswer> {
      const waitMs = Math.max(0, opts.waitMs ?? 0);
      if (opts.priority !== 'background' || waitMs === 0) return budget.take(key, opts);
      // Slots are shared only between callers of the same owner: the owner's share counts them.
      const laneKey = `${key}\u0000${opts.owner ?? ''}`;
      const start = now();
      let lane = lanes.get(laneKey);
      if (!lane) lanes.set(laneKey, (lane = { tail: Promise.resolve(), waiting: 0, spare: 0, spareUntil: 0 }));
      const before = lane.tail;
      let leave!: () => void;
      const mine = new Promise<void>((r) => (leave = r));
      const tail = before.then(() => mine);
      lane.tail = tail;
      lane.waiting++;
      try {
        await before;
        if (lane.spare > 0 && now() < lane.spareUntil) {
          lane.spare--;
          return { ok: true };
        }
        lane.spare = 0;
        // The time in line, then each sleep as asked (a test's sleep may not move the clock).
        let waited = now() - start;
        for (;;) {
          const slot = await budget.take(key, { ...opts, upTo: lane.waiting });
          if (slot.ok) {
            lane.spare = Math.max(0, (slot.granted ?? 1) - 1);
            lane.spareUntil = now() + spareMs;
            return { ok: true };
          }
          if (waited + slot.retryAfterMs > waitMs) return slot;
          const wait = Math.max(1, slot.retryAfterMs);
          await sleep(wait);
          waited += wait;
        }
      } finally {
        lane.waiting--;
        leave();
        if (lane.tail === tail && lane.waiting === 0 && lane.spare === 0) lanes.delete(laneKey);
      }
    },
  };
}
export type BudgetLanes = ReturnType<typeof createBudgetLanes>;
