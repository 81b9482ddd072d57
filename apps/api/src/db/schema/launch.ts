import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { brands, regions } from './catalogues.ts';
import { domainRegistratorContacts, domainRegistrators } from './catalogues-people.ts';
import { domains } from './domains.ts';
import { clouds, servers } from './infrastructure.ts';
import { yandexWebmasterAccounts } from './yandex-webmaster.ts';
import { googleSearchAccounts } from './google-search.ts';

/** A record as the contract's DnsTemplateRecord holds it. */
export type DnsTemplateRecordRow = {
  type: string;
  name: string;
  content: string;
  ttl: number;
  proxied: boolean;
  priority?: number;
};

/** DNS templates (issue 27): records with {domain} and {serverIp}, checked by the contract before they are stored. */
export const dnsTemplates = pgTable(
  'dns_templates',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    dnsTemplateNo: integer('dns_template_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
    records: jsonb('records').$type<DnsTemplateRecordRow[]>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('dns_templates_name_lower_uq').on(sql`lower(${t.name})`),
    index('dns_templates_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
  ],
);

/**
 * Launch profiles (issue 27): a launch's defaults. References are RESTRICT like the domains' (the services refuse
 * such deletes first with a 409); firewall_rule_ids is an array, so the services check it instead of a key.
 */
export const launchProfiles = pgTable(
  'launch_profiles',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    launchProfileNo: integer('launch_profile_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
    brandId: uuid('brand_id').references(() => brands.id, { onDelete: 'restrict' }),
    serverId: uuid('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'restrict' }),
    cloudId: uuid('cloud_id')
      .notNull()
      .references(() => clouds.id, { onDelete: 'restrict' }),
    domainRegistratorId: uuid('domain_registrator_id').references(() => domainRegistrators.id, {
      onDelete: 'restrict',
    }),
    register: boolean('register').notNull().default(false),
    domainRegistratorContactId: uuid('domain_registrator_contact_id').references(() => domainRegistratorContacts.id, {
      onDelete: 'restrict',
    }),
    contentKind: text('content_kind', { enum: ['none', 'copy', 'parse'] })
      .notNull()
      .default('none'),
    contentDomainId: uuid('content_domain_id').references(() => domains.id, { onDelete: 'restrict' }),
    contentUrl: text('content_url'),
    contentRegionId: uuid('content_region_id').references(() => regions.id, { onDelete: 'restrict' }),
    dnsTemplateId: uuid('dns_template_id').references(() => dnsTemplates.id, { onDelete: 'restrict' }),
    firewallRuleIds: uuid('firewall_rule_ids')
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    sslMode: text('ssl_mode', { enum: ['off', 'flexible', 'full', 'strict'] })
      .notNull()
      .default('strict'),
    tls13: boolean('tls13').notNull().default(true),
    yandexWebmasterAccountId: uuid('yandex_webmaster_account_id').references(() => yandexWebmasterAccounts.id, {
      onDelete: 'restrict',
    }),
    /** Migration 0055: the launch adds and verifies the domain's Google property with this account. */
    googleSearchAccountId: uuid('google_search_account_id').references(() => googleSearchAccounts.id, {
      onDelete: 'restrict',
    }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('launch_profiles_name_lower_uq').on(sql`lower(${t.name})`),
    index('launch_profiles_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
    index('launch_profiles_brand_idx').on(t.brandId),
    index('launch_profiles_server_idx').on(t.serverId),
    index('launch_profiles_cloud_idx').on(t.cloudId),
    index('launch_profiles_domain_registrator_idx').on(t.domainRegistratorId),
    index('launch_profiles_contact_idx').on(t.domainRegistratorContactId),
    index('launch_profiles_content_domain_idx').on(t.contentDomainId),
    index('launch_profiles_content_region_idx').on(t.contentRegionId),
    index('launch_profiles_dns_template_idx').on(t.dnsTemplateId),
    index('launch_profiles_yandex_webmaster_account_idx').on(t.yandexWebmasterAccountId),
    index('launch_profiles_google_search_account_idx').on(t.googleSearchAccountId),
    index('launch_profiles_firewall_rule_ids_idx').using('gin', t.firewallRuleIds),
  ],
);
