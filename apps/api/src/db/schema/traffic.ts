import { bigint, date, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { domains } from './domains.ts';

/** When each domain's traffic was last read from Cloudflare (the periodic job takes the longest-unread first). */
export const domainTraffic = pgTable(
  'domain_traffic',
  {
    domainId: uuid('domain_id')
      .primaryKey()
      .references(() => domains.id, { onDelete: 'cascade' }),
    /** The zone the kept days came from: a domain linked to another zone starts again. */
    zoneId: text('zone_id').notNull(),
    readAt: timestamp('read_at', { withTimezone: true }).notNull(),
    /** Why the last read failed (null when it worked); the days read before are kept. */
    error: text('error'),
  },
  (t) => [index('domain_traffic_read_at_idx').on(t.readAt)],
);

/** A domain's HTTP traffic per UTC day, as Cloudflare's GraphQL Analytics (httpRequests1dGroups) counts it. */
export const domainTrafficDays = pgTable(
  'domain_traffic_days',
  {
    domainId: uuid('domain_id')
      .notNull()
      .references(() => domains.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull(),
    pageViews: bigint('page_views', { mode: 'number' }).notNull(),
    visits: bigint('visits', { mode: 'number' }).notNull(),
    threats: bigint('threats', { mode: 'number' }).notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    status2xx: bigint('status_2xx', { mode: 'number' }).notNull(),
    status3xx: bigint('status_3xx', { mode: 'number' }).notNull(),
    status4xx: bigint('status_4xx', { mode: 'number' }).notNull(),
    status5xx: bigint('status_5xx', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.domainId, t.day] }), index('domain_traffic_days_day_idx').on(t.day)],
);
