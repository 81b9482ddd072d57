import {
  TRAFFIC_KEEP_DAYS,
  TRAFFIC_RANGE_DAYS,
  type DomainTraffic,
  type TrafficDay,
  type TrafficRange,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import type { CfTrafficPeriod } from '../../integrations/cloudflare/index.ts';
import type { CloudFlareService } from '../cloud-flare/cloud-flare.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { TrafficDayRow, TrafficRepository } from './traffic.repository.ts';

const DAY_MS = 86_400_000;
/** The widest range one httpRequests1dGroups query may ask for (its maxDuration, 2,678,400 s). */
const MAX_QUERY_DAYS = 31;
/** YYYY-MM-DD of the UTC day `offset` days from `now`. */
const dayOf = (now: number, offset = 0) => new Date(now + offset * DAY_MS).toISOString().slice(0, 10);

/** One day as Cloudflare counted it, its response statuses grouped in classes. */
export function trafficRowOf(domainId: string, p: CfTrafficPeriod): TrafficDayRow {
  const cls = (c: number) =>
    p.statuses.filter((s) => Math.floor(s.status / 100) === c).reduce((n, s) => n + s.requests, 0);
  return {
    domainId,
    day: p.at.slice(0, 10),
    requests: p.requests,
    pageViews: p.pageViews,
    visits: p.uniques,
    threats: p.threats,
    bytes: p.bytes,
    // 1xx answers are rare at the edge and have no chart of their own: counted with 2xx.
    status2xx: cls(2) + cls(1),
    status3xx: cls(3),
    status4xx: cls(4),
    status5xx: cls(5),
  };
}

async function pool<T>(items: T[], n: number, signal: AbortSignal | undefined, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/**
 * Each domain's traffic (issue 47, decision 070): read from its Cloudflare zone (GraphQL Analytics, one call for
 * the kept days), kept in `domain_traffic_days`, answered from there. The periodic job reads the longest-unread
 * domains again within the fleet share of each account's budget; the domain page reads a domain never read.
 */
export function createTrafficService(deps: {
  repo: TrafficRepository;
  domains: Pick<DomainsService, 'get'>;
  cloudFlare: Pick<CloudFlareService, 'zoneTrafficDays'>;
  /** Runs the periodic job's calls as background work (the fleet share of each Cloudflare budget). */
  background: <T>(fn: () => Promise<T>) => Promise<T>;
  options: { refreshHours: number; maxDomainsPerRun: number; concurrency?: number };
  now?: () => number;
}) {
  const { repo } = deps;
  const now = deps.now ?? Date.now;

  /**
   * Reads the domain's days from Cloudflare and keeps them; a failure is kept as the domain's error and thrown.
   * A query may span at most 31 days (httpRequests1dGroups' maxDuration), so a first read of the kept 37 days
   * takes two; later reads take the last 31 (the days before no longer change).
   */
  const refresh = async (domainId: string, actor?: Actor) => {
    const domain = await deps.domains.get(domainId);
    const state = await repo.readState(domainId);
    const whole = !state || state.zoneId !== domain.cloudZoneId;
    const at = now();
    const keepFrom = dayOf(at, -(TRAFFIC_KEEP_DAYS - 1));
    const ranges = [{ since: dayOf(at, -(MAX_QUERY_DAYS - 1)), until: dayOf(at) }];
    if (whole) ranges.push({ since: keepFrom, until: dayOf(at, -MAX_QUERY_DAYS) });
    try {
      let zoneId = '';
      const rows: TrafficDayRow[] = [];
      for (const range of ranges) {
        const read = await deps.cloudFlare.zoneTrafficDays(domainId, range, actor);
        zoneId = read.zoneId;
        rows.push(...read.days.map((d) => trafficRowOf(domainId, d)));
      }
      await repo.keep({ domainId, zoneId, readAt: new Date(at), keepFrom, days: rows });
    } catch (err) {
      if (domain.cloudZoneId) {
        const error = err instanceof Error ? err.message : String(err);
        await repo.failed({ domainId, zoneId: domain.cloudZoneId, at: new Date(at), error }).catch(() => undefined);
      }
      throw err;
    }
  };

  const answer = async (
    domain: { _id: string; cloudZoneId: string | null },
    range: TrafficRange,
  ): Promise<DomainTraffic> => {
    const domainId = domain._id;
    const at = now();
    const since = dayOf(at, -(TRAFFIC_RANGE_DAYS[range] - 1));
    const until = dayOf(at);
    const state = await repo.readState(domainId);
    const totals = {
      requests: 0,
      pageViews: 0,
      visits: 0,
      threats: 0,
      bytes: 0,
      status: { s2xx: 0, s3xx: 0, s4xx: 0, s5xx: 0 },
    };
    const base = {
      domainId,
      range,
      since,
      until,
      readAt: state?.readAt.toISOString() ?? null,
      error: state?.error ?? null,
    };
    if (!domain.cloudZoneId) return { ...base, state: 'no_zone', days: [], totals, error: null };
    if (!state) return { ...base, state: 'never_read', days: [], totals };
    const kept = new Map((await repo.days(domainId, since, until)).map((r) => [r.day, r]));
    const days: TrafficDay[] = [];
    // Every day of the range is there: a day Cloudflare had no traffic for (or not yet read) reads zero.
    for (let i = TRAFFIC_RANGE_DAYS[range] - 1; i >= 0; i--) {
      const date = dayOf(at, -i);
      const r = kept.get(date);
      const day: TrafficDay = {
        date,
        requests: r?.requests ?? 0,
        pageViews: r?.pageViews ?? 0,
        visits: r?.visits ?? 0,
        threats: r?.threats ?? 0,
        bytes: r?.bytes ?? 0,
        status: { s2xx: r?.status2xx ?? 0, s3xx: r?.status3xx ?? 0, s4xx: r?.status4xx ?? 0, s5xx: r?.status5xx ?? 0 },
      };
      days.push(day);
      for (const k of ['requests', 'pageViews', 'visits', 'threats', 'bytes'] as const) totals[k] += day[k];
      for (const k of ['s2xx', 's3xx', 's4xx', 's5xx'] as const) totals.status[k] += day.status[k];
    }
    return { ...base, state: 'ok', days, totals };
  };

  return {
    /** The kept series of the range; read from Cloudflare first when the domain's zone was never read. */
    async get(domainId: string, range: TrafficRange, actor?: Actor): Promise<DomainTraffic> {
      const domain = await deps.domains.get(domainId);
      const state = await repo.readState(domainId);
      if (domain.cloudZoneId && (!state || state.zoneId !== domain.cloudZoneId)) await refresh(domainId, actor);
      return answer(domain, range);
    },

    /** Reads the domain's traffic from Cloudflare now (the Refresh of the domain page). */
    async refreshNow(domainId: string, range: TrafficRange, actor?: Actor): Promise<DomainTraffic> {
      await refresh(domainId, actor);
      return answer(await deps.domains.get(domainId), range);
    },

    /** One run of the periodic job: the domains read longest ago (or never), within the fleet share. */
    async cycle(progress: (done: number, total: number) => Promise<void> | void, signal?: AbortSignal) {
      const due = await repo.due(
        new Date(now() - deps.options.refreshHours * 3_600_000),
        deps.options.maxDomainsPerRun,
      );
      let done = 0;
      let failed = 0;
      await deps.background(() =>
        pool(due, deps.options.concurrency ?? 4, signal, async ({ id }) => {
          // A domain that cannot be read keeps its error and waits its turn; the others go on.
          await refresh(id).catch(() => failed++);
          done++;
          await progress(done, due.length);
        }),
      );
      const read = done - failed;
      return {
        read,
        failed,
        message: `Traffic read for ${read.toLocaleString('en-US')} domain${read === 1 ? '' : 's'}${failed ? `; ${failed.toLocaleString('en-US')} failed (each domain's page says why)` : ''}`,
      };
    },
  };
}
export type TrafficService = ReturnType<typeof createTrafficService>;
