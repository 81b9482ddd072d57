import { z } from 'zod';
import { IdSchema } from './common.ts';

/** The ranges the domain page draws: the last 7 and the last 30 days (UTC days, today included). */
export const TRAFFIC_RANGES = ['7d', '30d'] as const;
export type TrafficRange = (typeof TRAFFIC_RANGES)[number];
export const TRAFFIC_RANGE_DAYS: Record<TrafficRange, number> = { '7d': 7, '30d': 30 };
/** Days kept per domain: the longest range plus the week before it, for the week-on-week comparison. */
export const TRAFFIC_KEEP_DAYS = 37;

export const TrafficQuerySchema = z.object({
  range: z
    .enum(TRAFFIC_RANGES, { message: `range must be one of ${TRAFFIC_RANGES.join(', ')} (the last 7 or 30 days)` })
    .default('7d'),
});
export type TrafficQuery = z.infer<typeof TrafficQuerySchema>;

/** Requests per class of edge response status. */
export const TrafficStatusSchema = z.object({
  s2xx: z.number().int(),
  s3xx: z.number().int(),
  s4xx: z.number().int(),
  s5xx: z.number().int(),
});
export type TrafficStatus = z.infer<typeof TrafficStatusSchema>;

export const TrafficDaySchema = z.object({
  /** YYYY-MM-DD (UTC). A day Cloudflare had no traffic for is there with zeros. */
  date: z.string(),
  requests: z.number().int(),
  pageViews: z.number().int(),
  /** Unique visitors (Cloudflare's `uniq.uniques`). */
  visits: z.number().int(),
  threats: z.number().int(),
  bytes: z.number().int(),
  status: TrafficStatusSchema,
});
export type TrafficDay = z.infer<typeof TrafficDaySchema>;

export const TRAFFIC_STATES = ['ok', 'no_zone', 'never_read'] as const;

export const DomainTrafficSchema = z.object({
  domainId: IdSchema,
  range: z.enum(TRAFFIC_RANGES),
  /** 'no_zone': the domain has no Cloudflare zone, so there is nothing to read. */
  state: z.enum(TRAFFIC_STATES),
  since: z.string(),
  until: z.string(),
  /** When Cloudflare was last read for this domain (null: never). */
  readAt: z.string().nullable(),
  /** Why the last read failed, when it did (the kept days are still answered). */
  error: z.string().nullable(),
  days: z.array(TrafficDaySchema),
  totals: TrafficDaySchema.omit({ date: true }),
});
export type DomainTraffic = z.infer<typeof DomainTrafficSchema>;
