import { sql } from 'drizzle-orm';
import { check, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { domains } from './domains.ts';

/**
 * A domain's IndexNow key (issue 46, decision 075): made on its first submission, served by its site as
 * /<key>.txt. Public by the protocol, so stored plainly; `lastSubmittedAt` lets a sitemap job send only the pages
 * changed since.
 */
export const indexNowKeys = pgTable(
  'index_now_keys',
  {
    domainId: uuid('domain_id')
      .primaryKey()
      .references(() => domains.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSubmittedAt: timestamp('last_submitted_at', { withTimezone: true }),
  },
  (t) => [check('index_now_keys_key_ck', sql`${t.key} ~ '^[a-zA-Z0-9-]{8,128}$'`)],
);
