import { check, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

/** One row: a known text sealed with the app key, so a process with another key can tell (lib/app-key-check.ts). */
export const appKeyCheck = pgTable(
  'app_key_check',
  {
    id: integer('id').primaryKey().default(1),
    sealed: text('sealed').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('app_key_check_id_check', sql`${t.id} = 1`)],
);
