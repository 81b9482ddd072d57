import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/** Yandex Webmaster accounts. api_token_enc is AES-GCM sealed (lib/secret-box.ts). */
export const yandexWebmasterAccounts = pgTable(
  'yandex_webmaster_accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    yandexWebmasterAccountNo: integer('yandex_webmaster_account_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
    apiTokenEnc: text('api_token_enc'),
    /** The token owner's user id, found through GET /v4/user and cached; cleared when the token changes. */
    userId: text('user_id'),
  },
  (t) => [index('yandex_webmaster_accounts_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`)],
);

/** Recrawl URLs beyond the day's quota, sent on later days (decision 027). */
export const yandexWebmasterRecrawlBacklog = pgTable(
  'yandex_webmaster_recrawl_backlog',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => yandexWebmasterAccounts.id, { onDelete: 'cascade' }),
    hostId: text('host_id').notNull(),
    url: text('url').notNull(),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('yandex_webmaster_recrawl_backlog_uq').on(t.accountId, t.hostId, t.url),
    index('yandex_webmaster_recrawl_backlog_added_idx').on(t.addedAt),
  ],
);
