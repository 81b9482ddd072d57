import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Sign-in attempts per throttle key (a hashed username+address pair, or an address). In the database so that
 * every API process counts the same attempts; see decision 012.
 */
export const loginAttempts = pgTable(
  'login_attempts',
  {
    key: text('key').primaryKey(),
    failures: integer('failures').notNull().default(0),
    firstAt: timestamp('first_at', { withTimezone: true }).notNull().defaultNow(),
    lastAt: timestamp('last_at', { withTimezone: true }).notNull().defaultNow(),
    nextAt: timestamp('next_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('login_attempts_last_at_idx').on(t.lastAt)],
);
