import { FILTER_NONE, hasNonAscii, healthMark, type DomainFilter } from '@fleetdesk/contract';

/**
 * Kept domains pages ended by the rows a write touches (decision 053). The database records, per changed row,
 * what a list filters on before and after (migration 0033, domain_list_values); a kept page survives a change
 * that provably leaves it as it is: the row was and is outside its filter, or was and is inside it but is not
 * one of the page's rows (same count, same places: the order is the domain number, which never changes).
 */

/** What a list's filters read of a domain row (migration 0033, domain_list_values). */
export type ListValues = {
  brandId: string | null;
  serverId: string | null;
  cloudId: string | null;
  domainRegistratorId: string | null;
  status: string;
  zone: boolean;
  expires: string | null;
  health: string | null;
  failing: string[] | null;
  checks: string[] | null;
  name: string;
  redirect: string | null;
  nameUnicode: string;
};

/** One changed row in one committed transaction (v: its domains version). No number: any domain may have changed. */
export type ListChange = { v: number; no: number | null; o: ListValues | null; n: ListValues | null };

/** The filters domainMatches decides. */
const DECIDED = new Set([
  'search',
  'brandId',
  'serverId',
  'cloudId',
  'domainRegistratorId',
  'status',
  'hasZone',
  'expiresBefore',
  'expiresFrom',
  'health',
  'failingCheck',
  'check',
  'checkState',
]);
const ASCII = /^[\x20-\x7e]*$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const PROBLEMS = ['failing', 'warning', 'unknown'];

const refMatches = (value: string | null, want: string | undefined) =>
  want === undefined || (want === FILTER_NONE ? value === null : value !== null && value === want.toLowerCase());

/**
 * Whether a row with these values is in the list so filtered, as domainFilterWhere decides it: true, false, or
 * undefined where only the database can tell (a search typed in Unicode, a name that is not plain ASCII), which
 * the caller treats as "may have changed the page".
 */
export function domainMatches(r: ListValues, f: Partial<DomainFilter>): boolean | undefined {
  // A filter this function does not know (one added to the list later) is left to the database.
  let unsure = Object.entries(f).some(([k, v]) => v !== undefined && v !== '' && !DECIDED.has(k));
  const s = f.search?.trim().toLowerCase();
  if (s) {
    const texts = [r.name, r.redirect].filter((x): x is string => x !== null);
    // ILIKE with a plain-ASCII pattern on plain-ASCII text is a substring test ignoring ASCII case.
    if (hasNonAscii(s) || texts.some((x) => !ASCII.test(x))) unsure = true;
    else if (!texts.some((x) => x.toLowerCase().includes(s))) return false;
  }
  if (!refMatches(r.brandId, f.brandId)) return false;
  if (!refMatches(r.serverId, f.serverId)) return false;
  if (!refMatches(r.cloudId, f.cloudId)) return false;
  if (!refMatches(r.domainRegistratorId, f.domainRegistratorId)) return false;
  if (f.status && r.status !== f.status) return false;
  if (f.hasZone !== undefined && r.zone !== f.hasZone) return false;
  if (f.expiresBefore) {
    if (!ISO_DATE.test(f.expiresBefore) || (r.expires !== null && !ISO_DATE.test(r.expires))) unsure = true;
    else if (r.expires === null || !(r.expires < f.expiresBefore)) return false;
  }
  if (f.expiresFrom) {
    if (!ISO_DATE.test(f.expiresFrom) || (r.expires !== null && !ISO_DATE.test(r.expires))) unsure = true;
    else if (r.expires === null || !(r.expires >= f.expiresFrom)) return false;
  }
  if (f.health) {
    const h = r.health;
    const ok =
      f.health === 'unchecked'
        ? h === null
        : f.health === 'problems'
          ? h !== null && PROBLEMS.includes(h)
          : h === f.health;
    if (!ok) return false;
  }
  if (f.failingCheck && !(r.failing ?? []).includes(f.failingCheck)) return false;
  if (f.check) {
    const states = !f.checkState || f.checkState === 'problems' ? PROBLEMS : [f.checkState];
    const marks = states.map((st) => healthMark(f.check!, st));
    if (!(r.checks ?? []).some((m) => marks.includes(m))) return false;
  }
  return unsure ? undefined : true;
}

/** Whether a change can make a kept page (its filter and the numbers of its rows) differ from a new read. */
export function changeEndsPage(c: ListChange, f: Partial<DomainFilter>, nos: ReadonlySet<number>): boolean {
  if (c.no === null) return true;
  const was = c.o ? domainMatches(c.o, f) : false;
  const is = c.n ? domainMatches(c.n, f) : false;
  if (was === false && is === false) return false;
  if (was === true && is === true) return nos.has(c.no);
  // In or out of the list: its count and the places after it move.
  return true;
}

/**
 * How far behind (in domains versions) this process may read changes: the database prunes those 50,000
 * versions old (migration 0033), so a process further behind than this may have lost some and starts again.
 */
export const CHANGE_WINDOW = 40_000;

/** A kept page: its answer, what it was read for, and the versions it was read at. */
export type KeptPage<R> = {
  /** The versions of every other table the page reads (referenced rows, rule links), as one text. */
  ov: string;
  /** The domains version the page is known to be exact at (moved forward as changes are found harmless). */
  dv: number;
  at: number;
  filter: Partial<DomainFilter>;
  nos: ReadonlySet<number>;
  result: R;
};

/**
 * The changes this process has read, in version order, each read once by the shared version check: every change
 * with a version in (from, cursor] is here. Older ones are forgotten after `keepMs` (kept pages expire before);
 * a page read before `from` is not reused.
 */
export function createChangeLog(keepMs: number) {
  let cursor: number | undefined;
  let from = Number.POSITIVE_INFINITY;
  let changes: (ListChange & { at: number })[] = [];
  const forgetOld = (now: number) => {
    let drop = 0;
    while (drop < changes.length && changes[drop]!.at < now - keepMs) from = changes[drop++]!.v;
    // Never half a version: the rest of a forgotten version goes too.
    while (drop < changes.length && changes[drop]!.v <= from) drop++;
    if (drop) changes = changes.slice(drop);
  };
  /** The index of the first change after version v (versions ascend). */
  const firstAfter = (v: number) => {
    let lo = 0;
    let hi = changes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (changes[mid]!.v <= v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return {
    /** The version to read changes after (undefined: none read yet). */
    get cursor() {
      return cursor;
    },
    /**
     * Takes a check's answer: the domains version `dv` and the changes after the cursor up to it. It starts again
     * at dv, with no change and no older page trusted, when found is null (more than the check reads), when dv is
     * behind the cursor (the versions were reset) or further ahead than the database keeps changes for.
     */
    take(dv: number, found: ListChange[] | null, now = Date.now()) {
      if (cursor === undefined || found === null || dv < cursor || dv - cursor > CHANGE_WINDOW) {
        changes = [];
        from = dv;
      } else {
        for (const c of found) changes.push({ ...c, at: now });
      }
      cursor = dv;
      forgetOld(now);
    },
    /**
     * Whether a page kept at domains version page.dv is still exact at the current version `dv` (the one this
     * process's last check read): no change since could alter it. A page found exact is marked exact at dv, so
     * the next request does not look at the same changes again.
     */
    stillExact<R>(page: KeptPage<R>, dv: number): boolean {
      if (page.dv === dv) return true;
      if (page.dv > dv || page.dv < from || cursor === undefined || cursor < dv) return false;
      for (let i = firstAfter(page.dv); i < changes.length && changes[i]!.v <= dv; i++) {
        if (changeEndsPage(changes[i]!, page.filter, page.nos)) return false;
      }
      page.dv = dv;
      return true;
    },
    /**
     * How many rows the changes in (from, to] moved into a filter, less those they moved out: the count at `to` is
     * the count at `from` plus this. Undefined where the log cannot tell: changes forgotten or not read yet, a
     * change of "anything", or a row only the database can match (domainMatches).
     */
    countDelta(f: Partial<DomainFilter>, fromV: number, toV: number): number | undefined {
      if (fromV > toV || fromV < from || cursor === undefined || cursor < toV) return undefined;
      let delta = 0;
      for (let i = firstAfter(fromV); i < changes.length && changes[i]!.v <= toV; i++) {
        const c = changes[i]!;
        if (c.no === null) return undefined;
        const was = c.o ? domainMatches(c.o, f) : false;
        const is = c.n ? domainMatches(c.n, f) : false;
        if (was === undefined || is === undefined) return undefined;
        delta += Number(is) - Number(was);
      }
      return delta;
    },
    /** How many changes are held (tests). */
    get size() {
      return changes.length;
    },
  };
}
export type ChangeLog = ReturnType<typeof createChangeLog>;
