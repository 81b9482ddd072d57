import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { brands, regions } from './catalogues.ts';
import { domainRegistrators, firewallRules } from './catalogues-people.ts';
import { clouds, servers } from './infrastructure.ts';
import { yandexWebmasterAccounts } from './yandex-webmaster.ts';

/**
 * Domains. domain_name is the stored form (lower-case punycode, unique); domain_name_unicode is kept
 * beside it for display and for searches typed in Unicode. References are RESTRICT: the services refuse
 * such deletes first with a 409 naming the domains, and the keys hold if two requests race.
 */
export const domains = pgTable(
  'domains',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    domainNo: integer('domain_no').generatedAlwaysAsIdentity().notNull(),
    domainName: text('domain_name').notNull(),
    domainNameUnicode: text('domain_name_unicode').notNull(),
    status: text('status', { enum: ['active', 'inactive'] })
      .notNull()
      .default('active'),
    serverId: uuid('server_id').references(() => servers.id, { onDelete: 'restrict' }),
    brandId: uuid('brand_id').references(() => brands.id, { onDelete: 'restrict' }),
    cloudId: uuid('cloud_id').references(() => clouds.id, { onDelete: 'restrict' }),
    cloudZoneId: text('cloud_zone_id'),
    cloudRulesetId: text('cloud_ruleset_id'),
    parserEnabled: boolean('parser_enabled').notNull().default(false),
    isSinglePage: boolean('is_single_page').notNull().default(false),
    parserUrl: text('parser_url'),
    parserProxyRegionId: uuid('parser_proxy_region_id').references(() => regions.id, { onDelete: 'restrict' }),
    redirectDomainName: text('redirect_domain_name'),
    isRestricted: boolean('is_restricted').notNull().default(false),
    domainRegistratorId: uuid('domain_registrator_id').references(() => domainRegistrators.id, {
      onDelete: 'restrict',
    }),
    domainRegistratorExpirationDate: date('domain_registrator_expiration_date', { mode: 'string' }),
    yandexWebmasterAccountId: uuid('yandex_webmaster_account_id').references(() => yandexWebmasterAccounts.id, {
      onDelete: 'restrict',
    }),
    parsingStartDate: timestamp('parsing_start_date', { withTimezone: true }),
    parsingEndDate: timestamp('parsing_end_date', { withTimezone: true }),
    parsingProgress: jsonb('parsing_progress').$type<Record<string, unknown>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** The worst health result (null: never checked), written only when it changes (modules/health). */
    healthState: text('health_state', { enum: ['ok', 'warning', 'failing', 'unknown', 'na'] }),
    healthProblems: integer('health_problems').notNull().default(0),
    /** The checks failing now, for the list's "failing check" filter. */
    healthFailing: text('health_failing')
      .array()
      .notNull()
      .default(sql`'{}'`),
    /** Every stored check as "check:state" (healthMark), for the list's per-check filter; written on a change. */
    healthChecks: text('health_checks')
      .array()
      .notNull()
      .default(sql`'{}'`),
  },
  (t) => [
    uniqueIndex('domains_domain_name_uq').on(t.domainName),
    index('domains_health_state_idx').on(t.healthState, t.domainNo),
    index('domains_health_failing_idx').using('gin', t.healthFailing),
    index('domains_health_checks_idx').using('gin', t.healthChecks),
    // Paging walks this index alone (ids by number, then the page's rows), so deep pages stay cheap.
    uniqueIndex('domains_domain_no_uq').on(t.domainNo),
    index('domains_domain_name_trgm_idx').using('gin', sql`${t.domainName} gin_trgm_ops`),
    index('domains_domain_name_unicode_trgm_idx').using('gin', sql`${t.domainNameUnicode} gin_trgm_ops`),
    index('domains_redirect_domain_name_trgm_idx').using('gin', sql`${t.redirectDomainName} gin_trgm_ops`),
    // A filter on one reference or the status reads its page from these in number order (migration 0034).
    index('domains_server_no_idx').on(t.serverId, t.domainNo),
    index('domains_brand_no_idx').on(t.brandId, t.domainNo),
    index('domains_cloud_no_idx').on(t.cloudId, t.domainNo),
    index('domains_status_no_idx').on(t.status, t.domainNo),
    index('domains_parser_proxy_region_idx').on(t.parserProxyRegionId),
    index('domains_domain_registrator_no_idx').on(t.domainRegistratorId, t.domainNo),
    index('domains_yandex_webmaster_account_idx').on(t.yandexWebmasterAccountId),
    index('domains_expiration_date_idx')
      .on(t.domainRegistratorExpirationDate)
      .where(sql`${t.domainRegistratorExpirationDate} is not null`),
  ],
);

/** A domain's WAF rules (Setup WAF): templates with the domain's own priority, in the order saved. */
export const domainFirewallRules = pgTable(
  'domain_firewall_rules',
  {
    domainId: uuid('domain_id')
      .notNull()
      .references(() => domains.id, { onDelete: 'cascade' }),
    ruleId: uuid('rule_id')
      .notNull()
      .references(() => firewallRules.id, { onDelete: 'restrict' }),
    priority: integer('priority').notNull(),
    position: integer('position').notNull(),
  },
  (t) => [primaryKey({ columns: [t.domainId, t.ruleId] }), index('domain_firewall_rules_rule_idx').on(t.ruleId)],
);

/**
 * The number of domains, in one row (id 1), kept exact by statement-level triggers on domains (insert,
 * delete, truncate; migration 0004), so the unfiltered list's count is a single row read at any size.
 */
export const domainCounts = pgTable('domain_counts', {
  id: integer('id').primaryKey(),
  n: bigint('n', { mode: 'number' }).notNull(),
});

/**
 * The number of domains per filter value (dim: brand, server, cloud, registrator, status, zone; val: an id or
 * 'none', a status, 'true'/'false' for a zone), kept exact by statement-level triggers on domains (migration
 * 0032), so a list filtered by one of them knows its count without counting, however often domains change.
 */
export const domainFilterCounts = pgTable(
  'domain_filter_counts',
  {
    dim: text('dim').notNull(),
    val: text('val').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ name: 'domain_filter_counts_pkey', columns: [t.dim, t.val] })],
);

/**
 * What each committed write did to the domains a list shows (migration 0033): per changed row, its number and
 * the values a list filters on before (o) and after (n), stamped at commit with the domains version (v), which
 * follows commit order. A null domain_no is "any domain" (a truncate or a bulk statement). Kept domains pages
 * read the changes since they were kept and end only when one could change them (decision 053).
 */
export const domainListChanges = pgTable(
  'domain_list_changes',
  {
    xid: bigint('xid', { mode: 'number' }).notNull(),
    v: bigint('v', { mode: 'number' }),
    domainNo: integer('domain_no'),
    o: jsonb('o'),
    n: jsonb('n'),
  },
  (t) => [
    index('domain_list_changes_v_idx').on(t.v),
    index('domain_list_changes_unstamped_idx')
      .on(t.xid)
      .where(sql`${t.v} IS NULL`),
  ],
);
