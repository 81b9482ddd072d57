import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Request rate-limit counters (fixed windows) per hashed key, shared by every API process on one PostgreSQL
 * (decision 036). The embedded database has one process, which counts in memory instead.
 */
export const rateLimitHits = pgTable(
  'rate_limit_hits',
  {
    key: text('key').primaryKey(),
    hits: integer('hits').notNull().default(0),
    resetAt: timestamp('reset_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('rate_limit_hits_reset_at_idx').on(t.resetAt)],
);
