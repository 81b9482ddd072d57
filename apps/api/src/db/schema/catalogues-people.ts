import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const firewallRules = pgTable(
  'firewall_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    firewallRuleNo: integer('firewall_rule_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
    action: text('action', { enum: ['managed_challenge', 'block', 'js_challenge', 'skip', 'challenge'] }).notNull(),
    expression: text('expression').notNull().default(''),
    defaultPriority: integer('default_priority').notNull().default(0),
  },
  (t) => [
    uniqueIndex('firewall_rules_name_lower_uq').on(sql`lower(${t.name})`),
    index('firewall_rules_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
  ],
);

/** api_key holds the AES-GCM sealed value (lib/secret-box.ts), never the key itself. */
export const domainRegistrators = pgTable(
  'domain_registrators',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    domainRegistratorNo: integer('domain_registrator_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
    type: text('type', { enum: ['namecheap'] }).notNull(),
    endpointUrl: text('endpoint_url').notNull(),
    apiUsername: text('api_username').notNull(),
    apiKey: text('api_key'),
  },
  (t) => [
    uniqueIndex('domain_registrators_name_lower_uq').on(sql`lower(${t.name})`),
    index('domain_registrators_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
  ],
);

export const domainRegistratorContacts = pgTable(
  'domain_registrator_contacts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    domainRegistratorContactNo: integer('domain_registrator_contact_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    address1: text('address1'),
    city: text('city'),
    state: text('state'),
    postalCode: text('postal_code'),
    country: text('country'),
    phone: text('phone'),
    email: text('email'),
  },
  (t) => [
    index('domain_registrator_contacts_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
    index('domain_registrator_contacts_email_trgm_idx').using('gin', sql`${t.email} gin_trgm_ops`),
  ],
);
