import { sql } from 'drizzle-orm';
import { ALERT_SUBJECTS } from '@fleetdesk/contract';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { brands } from './catalogues.ts';
import { domains } from './domains.ts';

/** Where alerts go (issue 29). Secret columns hold AES-GCM sealed values (lib/secret-box.ts). */
export const notificationChannels = pgTable(
  'notification_channels',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    channelNo: integer('channel_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
    kind: text('kind', { enum: ['email', 'webhook', 'telegram'] }).notNull(),
    enabled: boolean('enabled').notNull().default(true),
    smtpHost: text('smtp_host'),
    smtpPort: integer('smtp_port'),
    smtpSecurity: text('smtp_security', { enum: ['none', 'starttls', 'tls'] }),
    smtpUser: text('smtp_user'),
    smtpPasswordEnc: text('smtp_password_enc'),
    emailFrom: text('email_from'),
    emailTo: text('email_to'),
    webhookUrl: text('webhook_url'),
    webhookSecretEnc: text('webhook_secret_enc'),
    telegramBotTokenEnc: text('telegram_bot_token_enc'),
    telegramChatId: text('telegram_chat_id'),
    telegramApiBase: text('telegram_api_base'),
    lastTestAt: timestamp('last_test_at', { withTimezone: true }),
    lastTestOk: boolean('last_test_ok'),
    lastTestAnswer: text('last_test_answer'),
  },
  (t) => [uniqueIndex('notification_channels_name_uq').on(sql`lower(${t.name})`)],
);

export const alertRules = pgTable(
  'alert_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ruleNo: integer('rule_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    events: text('events')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    expiryDays: integer('expiry_days').notNull().default(30),
    healthMinutes: integer('health_minutes').notNull().default(15),
    scope: text('scope', { enum: ['all', 'brand', 'filter'] })
      .notNull()
      .default('all'),
    brandId: uuid('brand_id').references(() => brands.id, { onDelete: 'restrict' }),
    filter: jsonb('filter').$type<Record<string, unknown>>(),
    channelIds: uuid('channel_ids')
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    minSeverity: text('min_severity', { enum: ['info', 'warning', 'critical'] })
      .notNull()
      .default('warning'),
    reminderMinutes: integer('reminder_minutes'),
    quietStart: text('quiet_start'),
    quietEnd: text('quiet_end'),
    timeZone: text('time_zone'),
  },
  (t) => [
    uniqueIndex('alert_rules_name_uq').on(sql`lower(${t.name})`),
    index('alert_rules_channel_ids_idx').using('gin', t.channelIds),
  ],
);

/** One row per problem while it lasts: at most one open alert per key (e.g. `health:<domainId>:site_https`). */
export const alerts = pgTable(
  'alerts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    alertNo: integer('alert_no').generatedAlwaysAsIdentity().notNull(),
    key: text('key').notNull(),
    event: text('event').notNull(),
    severity: text('severity', { enum: ['info', 'warning', 'critical'] }).notNull(),
    /** open → resolved; `event` is a one-off (a failed job, a finished launch) that has no resolution. */
    state: text('state', { enum: ['open', 'resolved', 'event'] }).notNull(),
    title: text('title').notNull(),
    detail: text('detail'),
    subjectKind: text('subject_kind', { enum: ALERT_SUBJECTS }).notNull(),
    subjectId: text('subject_id'),
    subjectName: text('subject_name'),
    domainId: uuid('domain_id').references(() => domains.id, { onDelete: 'set null' }),
    /** When the problem began at its source (a check's `since`), for "failing for M minutes". */
    since: timestamp('since', { withTimezone: true }).notNull(),
    daysLeft: integer('days_left'),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('alerts_open_key_uq')
      .on(t.key)
      .where(sql`${t.state} = 'open'`),
    index('alerts_state_idx').on(t.state, t.openedAt),
    index('alerts_opened_idx').on(t.openedAt),
  ],
);

/** One message as sent (possibly summarising many alerts); its id is the idempotency key of every attempt. */
export const alertDeliveries = pgTable(
  'alert_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ruleId: uuid('rule_id').references(() => alertRules.id, { onDelete: 'set null' }),
    channelId: uuid('channel_id')
      .notNull()
      .references(() => notificationChannels.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['queued', 'sending', 'sent', 'failed'] })
      .notNull()
      .default('queued'),
    event: text('event').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    jobId: uuid('job_id'),
    attempts: integer('attempts').notNull().default(0),
    answer: text('answer'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [index('alert_deliveries_status_idx').on(t.status, t.createdAt)],
);

/** The outbox: what each rule owes each channel about each alert (open and resolved at most once). */
export const alertNotifications = pgTable(
  'alert_notifications',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    alertId: uuid('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    ruleId: uuid('rule_id')
      .notNull()
      .references(() => alertRules.id, { onDelete: 'cascade' }),
    channelId: uuid('channel_id')
      .notNull()
      .references(() => notificationChannels.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['open', 'reminder', 'resolved'] }).notNull(),
    status: text('status', { enum: ['pending', 'queued', 'sent', 'failed', 'skipped'] })
      .notNull()
      .default('pending'),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    deliveryId: uuid('delivery_id').references(() => alertDeliveries.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('alert_notifications_once_uq')
      .on(t.alertId, t.ruleId, t.channelId, t.kind)
      .where(sql`${t.kind} IN ('open', 'resolved')`),
    index('alert_notifications_due_idx').on(t.status, t.dueAt),
    index('alert_notifications_alert_idx').on(t.alertId),
  ],
);

export const alertDeliveryLog = pgTable(
  'alert_delivery_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    deliveryId: uuid('delivery_id').references(() => alertDeliveries.id, { onDelete: 'set null' }),
    channelId: uuid('channel_id').references(() => notificationChannels.id, { onDelete: 'set null' }),
    channelName: text('channel_name').notNull(),
    channelKind: text('channel_kind', { enum: ['email', 'webhook', 'telegram'] }).notNull(),
    event: text('event').notNull(),
    outcome: text('outcome', { enum: ['sent', 'failed', 'retrying', 'held', 'test'] }).notNull(),
    answer: text('answer'),
  },
  (t) => [index('alert_delivery_log_at_idx').on(t.at)],
);

/** Where the scan of finished jobs stopped (failed jobs are one-off events, read once). */
export const alertCursor = pgTable('alert_cursor', {
  id: integer('id').primaryKey(),
  jobsAfter: timestamp('jobs_after', { withTimezone: true }).notNull(),
});
