import { z } from 'zod';
import { IdSchema, NUL_MESSAGE, hasNoNul } from './common.ts';
import { HealthSummarySchema } from './health.ts';

/** A day (YYYY-MM-DD) plus n days (UTC). */
export const addDays = (day: string, n: number) => {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
};

/**
 * The list behind each figure of the starting page, with the lists' URL filters: each opens exactly the rows its
 * figure counts (a test compares every figure with its list through the API).
 */
export const dashboardLinks = (d: { today: string; expiringWithinDays: number }) => ({
  domains: '/domains',
  active: '/domains?status=active',
  inactive: '/domains?status=inactive',
  // The window the figure counts, today included: expiresBefore is exclusive, so the day after its last day.
  expiring: `/domains?expiresFrom=${d.today}&expiresBefore=${addDays(d.today, d.expiringWithinDays + 1)}`,
  expired: `/domains?expiresBefore=${d.today}`,
  servers: '/servers',
  serversOnline: '/servers?status=online',
  serversOffline: '/servers?status=offline',
  proxies: '/proxies',
  proxiesFailing: '/proxies?check=error',
  clouds: '/clouds',
  jobs: '/jobs?state=active',
  audit: '/audit-log?signIns=exclude',
});

/** How many rows the dashboard's short lists carry. */
export const DASHBOARD_LIST_SIZE = 8;

const DashboardDomainSchema = z.object({
  _id: IdSchema,
  domainName: z.string(),
  expirationDate: z.string(),
});

/** How many domains the dashboard names whose traffic fell most, and the least a week must have had to be named. */
export const TRAFFIC_FALLS_SIZE = 8;
export const TRAFFIC_FALL_MIN_REQUESTS = 100;
/** A fall smaller than this (in %) is the usual ebb of a week, not news. */
export const TRAFFIC_FALL_MIN_PERCENT = 10;

const DashboardTrafficSchema = z.object({
  /** The fleet's kept traffic per day (UTC), the last 14 days, today included. */
  days: z.array(
    z.object({
      date: z.string(),
      requests: z.number().int(),
      pageViews: z.number().int(),
      visits: z.number().int(),
      threats: z.number().int(),
    }),
  ),
  /** The last 7 whole days (to yesterday) and the 7 before them, summed over the fleet. */
  week: z.object({ since: z.string(), until: z.string(), requests: z.number().int() }),
  previousWeek: z.object({ since: z.string(), until: z.string(), requests: z.number().int() }),
  /** Domains whose traffic is kept (those with a Cloudflare zone read at least once). */
  domainsRead: z.number().int(),
  /** Domains whose requests fell most against the week before, largest fall (in %) first. */
  falls: z.array(
    z.object({
      _id: IdSchema,
      domainName: z.string(),
      requests: z.number().int(),
      previous: z.number().int(),
      /** Whole per cent, negative: -40 is a fall of 40 %. */
      change: z.number().int(),
    }),
  ),
});
export type DashboardTraffic = z.infer<typeof DashboardTrafficSchema>;

/**
 * The starting page in one answer. An area the caller may not read is null, so the page leaves it out;
 * `today` is the server's UTC date the expiry figures were counted against.
 */
export const DashboardSchema = z.object({
  today: z.string(),
  expiringWithinDays: z.number().int(),
  domains: z
    .object({
      total: z.number().int(),
      active: z.number().int(),
      inactive: z.number().int(),
      expired: z.number().int(),
      expiringSoon: z.number().int(),
      /** The soonest to expire (not yet expired), soonest first. */
      expiring: z.array(DashboardDomainSchema),
    })
    .nullable(),
  servers: z
    .object({ total: z.number().int(), online: z.number().int(), offline: z.number().int(), unknown: z.number().int() })
    .nullable(),
  proxies: z.object({ total: z.number().int(), failing: z.number().int(), unchecked: z.number().int() }).nullable(),
  clouds: z.object({ total: z.number().int() }).nullable(),
  /** Cloudflare traffic of the fleet (issue 47), read with the `cnv:domains` rule. */
  traffic: DashboardTrafficSchema.nullable(),
  /** The fleet's health (as GET /api/health/summary answers it), in this one answer: the dashboard loads with one request. */
  health: HealthSummarySchema.nullable(),
  /** The latest audit entries (the audit trail is readable with the `cnv` rule only). */
  latestChanges: z
    .array(
      z.object({
        _id: IdSchema,
        at: z.string(),
        username: z.string().nullable(),
        action: z.string(),
        entity: z.string(),
        entityId: z.string().nullable(),
        /** The change as a sentence (audit-labels.ts). */
        sentence: z.string(),
      }),
    )
    .nullable(),
  /** Queued and running jobs of the caller's areas, newest first. */
  runningJobs: z.object({
    total: z.number().int(),
    items: z.array(
      z.object({
        _id: IdSchema,
        jobNo: z.number().int(),
        kindLabel: z.string(),
        /** Its one name ("Fleet plan #3" or "Job #109", jobName) and the page it leads to. */
        name: z.string(),
        path: z.string(),
        state: z.string(),
        domainId: IdSchema.nullable(),
        domainName: z.string().nullable(),
        /** 0..100 when the job reports progress. */
        percent: z.number().nullable(),
      }),
    ),
  }),
});
export type Dashboard = z.infer<typeof DashboardSchema>;

export const SEARCH_AREAS = ['domains', 'servers', 'clouds', 'users', 'brands', 'domainRegistrators'] as const;
export type SearchArea = (typeof SEARCH_AREAS)[number];
export const SEARCH_QUERY_MAX = 100;
/** Hits per area. */
export const SEARCH_AREA_LIMIT = 5;

export const SearchQuerySchema = z.object({
  q: z
    .string({ message: 'q must be text' })
    .trim()
    .min(1, { message: 'q is required' })
    .max(SEARCH_QUERY_MAX, { message: `q must be at most ${SEARCH_QUERY_MAX} characters` })
    .refine(hasNoNul, { message: NUL_MESSAGE }),
});
export type SearchQuery = z.infer<typeof SearchQuerySchema>;

export const SearchHitSchema = z.object({
  area: z.enum(SEARCH_AREAS),
  _id: IdSchema,
  /** What matched, as the operator knows the item: domain name, IP address, email, username, name. */
  title: z.string(),
  subtitle: z.string().nullable(),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

export const SearchResultSchema = z.object({
  q: z.string(),
  /** The areas searched (those the caller may read), in display order. */
  areas: z.array(z.enum(SEARCH_AREAS)),
  hits: z.array(SearchHitSchema),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;
