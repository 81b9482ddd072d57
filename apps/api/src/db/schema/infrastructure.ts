import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { regions } from './catalogues.ts';

/** Cloudflare accounts. Secret columns hold AES-GCM sealed values (lib/secret-box.ts). */
export const clouds = pgTable(
  'clouds',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    cloudNo: integer('cloud_no').generatedAlwaysAsIdentity().notNull(),
    email: text('email').notNull(),
    passwordEnc: text('password_enc'),
    tokenEnc: text('token_enc'),
    globalApiKeyEnc: text('global_api_key_enc'),
    emailPasswordEnc: text('email_password_enc'),
    proxyRegionId: uuid('proxy_region_id').references(() => regions.id, { onDelete: 'restrict' }),
    /** Cloudflare account id, found through GET /accounts and cached. */
    accountId: text('account_id'),
  },
  (t) => [
    uniqueIndex('clouds_email_lower_uq').on(sql`lower(${t.email})`),
    index('clouds_email_trgm_idx').using('gin', sql`${t.email} gin_trgm_ops`),
    index('clouds_proxy_region_idx').on(t.proxyRegionId),
  ],
);

export const proxies = pgTable(
  'proxies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    proxyNo: integer('proxy_no').generatedAlwaysAsIdentity().notNull(),
    isHttps: boolean('is_https').notNull().default(false),
    ipAddress: text('ip_address'),
    httpPort: integer('http_port'),
    username: text('username'),
    passwordEnc: text('password_enc'),
    regionId: uuid('region_id').references(() => regions.id, { onDelete: 'restrict' }),
    proxyType: text('proxy_type', { enum: ['http', 'socks5'] }),
    checkStatus: text('check_status', { enum: ['ok', 'error'] }),
    checkLatencyMs: integer('check_latency_ms'),
    checkError: text('check_error'),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
    /** The current run of failed checks, and the processes that saw them (issue 26: marked failed on evidence). */
    checkFailures: integer('check_failures').notNull().default(0),
    checkFailedBy: text('check_failed_by')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
  },
  (t) => [
    index('proxies_region_idx').on(t.regionId),
    index('proxies_ip_trgm_idx').using('gin', sql`${t.ipAddress} gin_trgm_ops`),
  ],
);

export const servers = pgTable(
  'servers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    serverNo: integer('server_no').generatedAlwaysAsIdentity().notNull(),
    ipAddress: text('ip_address').notNull(),
    email: text('email'),
    domainsLimitQty: integer('domains_limit_qty').notNull().default(0),
    username: text('username').notNull().default('root'),
    sshPort: integer('ssh_port').notNull().default(22),
    domainsPath: text('domains_path'),
    ispmanagerUri: text('ispmanager_uri'),
    ispmanagerUsername: text('ispmanager_username'),
    ispmanagerPasswordEnc: text('ispmanager_password_enc'),
    ispmanagerAcceptSelfSigned: boolean('ispmanager_accept_self_signed').notNull().default(false),
    directAdminUri: text('direct_admin_uri'),
    directAdminUsername: text('direct_admin_username'),
    directAdminPasswordEnc: text('direct_admin_password_enc'),
    rsaKeyEnc: text('rsa_key_enc'),
    rsaKeyType: text('rsa_key_type'),
    rsaKeyFingerprint: text('rsa_key_fingerprint'),
    rsaPublicKey: text('rsa_public_key'),
    hostKeyFingerprint: text('host_key_fingerprint'),
    status: text('status', { enum: ['online', 'offline', 'unknown'] })
      .notNull()
      .default('unknown'),
    freeSpaceBytes: bigint('free_space_bytes', { mode: 'number' }),
    totalSpaceBytes: bigint('total_space_bytes', { mode: 'number' }),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
    checkError: text('check_error'),
  },
  (t) => [
    index('servers_ip_trgm_idx').using('gin', sql`${t.ipAddress} gin_trgm_ops`),
    index('servers_email_trgm_idx').using('gin', sql`${t.email} gin_trgm_ops`),
  ],
);
