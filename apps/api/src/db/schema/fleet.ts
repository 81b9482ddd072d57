import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** Cloudflare requests spent per account key, shared by every process (request-budget.ts, decision 034). */
export const cloudflareBudgetSpend = pgTable(
  'cloudflare_budget_spend',
  {
    key: text('key').notNull(),
    t: bigint('t', { mode: 'number' }).notNull(),
    background: boolean('background').notNull(),
    owner: text('owner'),
  },
  (t) => [index('cloudflare_budget_spend_key_t_idx').on(t.key, t.t)],
);

/** Cloudflare requests sent per account key and minute, kept a week (a fleet run's budget chart; migration 0050). */
export const cloudflareRequestsPerMinute = pgTable(
  'cloudflare_requests_per_minute',
  {
    key: text('key').notNull(),
    minute: timestamp('minute', { withTimezone: true }).notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ name: 'cloudflare_requests_per_minute_pk', columns: [t.key, t.minute] })],
);
