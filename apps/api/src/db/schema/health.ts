import { sql } from 'drizzle-orm';
import {
  bigint,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { domains } from './domains.ts';

/** When each domain's cheap and full checks last ran: the periodic job takes the longest-unchecked first. */
export const domainHealth = pgTable(
  'domain_health',
  {
    domainId: uuid('domain_id')
      .primaryKey()
      .references(() => domains.id, { onDelete: 'cascade' }),
    cheapAt: timestamp('cheap_at', { withTimezone: true }),
    fullAt: timestamp('full_at', { withTimezone: true }),
  },
  (t) => [index('domain_health_cheap_at_idx').on(t.cheapAt), index('domain_health_full_at_idx').on(t.fullAt)],
);

/** The last result of each check of each domain; `since` moves only when the state changes. */
export const domainHealthChecks = pgTable(
  'domain_health_checks',
  {
    domainId: uuid('domain_id')
      .notNull()
      .references(() => domains.id, { onDelete: 'cascade' }),
    checkKey: text('check_key').notNull(),
    state: text('state').notNull(),
    observed: text('observed'),
    expected: text('expected'),
    reason: text('reason'),
    since: timestamp('since', { withTimezone: true }).notNull(),
    lastRun: timestamp('last_run', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.domainId, t.checkKey] }),
    index('domain_health_checks_check_state_idx').on(t.checkKey, t.state),
  ],
);

/** A check's state changes (not every run). */
export const domainHealthEvents = pgTable(
  'domain_health_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    domainId: uuid('domain_id')
      .notNull()
      .references(() => domains.id, { onDelete: 'cascade' }),
    checkKey: text('check_key').notNull(),
    fromState: text('from_state'),
    toState: text('to_state').notNull(),
    observed: text('observed'),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('domain_health_events_domain_idx').on(t.domainId, t.at),
    index('domain_health_events_failing_idx')
      .on(t.at)
      .where(sql`${t.toState} = 'failing'`),
  ],
);

/**
 * How many domains are in each state of each check, kept by triggers on `domain_health_checks` (migration 0028)
 * in the transaction that writes a result: the dashboard reads these instead of grouping every check row.
 */
export const domainHealthCounts = pgTable(
  'domain_health_counts',
  {
    checkKey: text('check_key').notNull(),
    state: text('state').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.checkKey, t.state] })],
);

/** What the periodic job last said about its cycle (one row). */
export const healthCycle = pgTable('health_cycle', {
  id: integer('id').primaryKey(),
  at: timestamp('at', { withTimezone: true }).notNull(),
  fullCycleHours: doublePrecision('full_cycle_hours'),
  cheapCycleHours: doublePrecision('cheap_cycle_hours'),
  message: text('message').notNull(),
});
