import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { domains } from './domains.ts';

/** Google Search Console accounts: a service account's key, AES-GCM sealed (lib/secret-box.ts). Migration 0053. */
export const googleSearchAccounts = pgTable(
  'google_search_accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    googleSearchAccountNo: integer('google_search_account_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
    /** From the key, kept in clear to show: the service account Search Console knows. */
    clientEmail: text('client_email').notNull(),
    projectId: text('project_id'),
    /** From the key: where its assertions go (decision 058: changing it needs the key again). */
    tokenUri: text('token_uri').notNull(),
    serviceAccountKeyEnc: text('service_account_key_enc').notNull(),
  },
  (t) => [index('google_search_accounts_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`)],
);

/** A domain's Search Console property (at most one) and the account that holds it. */
export const googleSearchProperties = pgTable(
  'google_search_properties',
  {
    domainId: uuid('domain_id')
      .primaryKey()
      .references(() => domains.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id')
      .notNull()
      .references(() => googleSearchAccounts.id),
    siteUrl: text('site_url').notNull(),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('google_search_properties_account_idx').on(t.accountId),
    check('google_search_properties_site_url_ck', sql`${t.siteUrl} ~ '^(sc-domain:|https://)'`),
  ],
);
