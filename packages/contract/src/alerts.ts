import { z } from 'zod';
import {
  IdSchema,
  NUL_MESSAGE,
  hasNoNul,
  hasNoUrlCredentials,
  optionalText,
  requiredText,
  secretInput,
  secretOutput,
  urlCredentialsMessage,
} from './common.ts';
import { DomainFilterPartialSchema } from './domains.ts';
import { portInput } from './proxies.ts';
import { valuesOf } from './labels.ts';

// ---- Notification channels (issue 29) ----

export const CHANNEL_KINDS = ['email', 'webhook', 'telegram'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
export const CHANNEL_KIND_LABELS: Record<ChannelKind, string> = {
  email: 'Email (SMTP)',
  webhook: 'Webhook',
  telegram: 'Telegram',
};
export const SMTP_SECURITY = ['none', 'starttls', 'tls'] as const;
export type SmtpSecurity = (typeof SMTP_SECURITY)[number];
export const SMTP_SECURITY_LABELS: Record<SmtpSecurity, string> = {
  none: 'None',
  starttls: 'STARTTLS',
  tls: 'TLS',
};
/** The Bot API's address unless a channel names another (tests and the demo point at the simulator). */
export const TELEGRAM_API_BASE = 'https://api.telegram.org';
/**
 * Our first signature header, kept beside Standard Webhooks' `webhook-signature`: `t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<body>">` keyed by the secret's text.
 */
export const WEBHOOK_SIGNATURE_HEADER = 'Fleetdesk-Signature';
/** The delivery's id, the same on every retry of one message, so a receiver can drop a repeat. */
export const WEBHOOK_DELIVERY_HEADER = 'Fleetdesk-Delivery';

const emailList = z
  .string({ message: 'To is required' })
  .trim()
  .min(1, 'To is required')
  .max(2000, 'Must be at most 2000 characters')
  .refine(
    (v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .every((s) => z.email().safeParse(s).success),
    'Must be one or more email addresses separated by commas',
  );
const httpUrl = (label: string) =>
  z
    .string({ message: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(2000, 'Must be at most 2000 characters')
    .refine(hasNoNul, NUL_MESSAGE)
    .refine((v) => {
      try {
        const u = new URL(v);
        return (u.protocol === 'https:' || u.protocol === 'http:') && !!u.hostname;
      } catch {
        return false;
      }
    }, `${label} must be an http or https URL`)
    .refine(hasNoUrlCredentials, urlCredentialsMessage(label));

export const NotificationChannelSchema = z.object({
  _id: IdSchema,
  channelNo: z.number().int(),
  name: z.string(),
  kind: z.enum(CHANNEL_KINDS),
  enabled: z.boolean(),
  // Email
  smtpHost: z.string().nullable(),
  smtpPort: z.number().int().nullable(),
  smtpSecurity: z.enum(SMTP_SECURITY).nullable(),
  smtpUser: z.string().nullable(),
  smtpPassword: secretOutput(),
  emailFrom: z.string().nullable(),
  emailTo: z.string().nullable(),
  // Webhook
  webhookUrl: z.string().nullable(),
  webhookSecret: secretOutput(),
  // Telegram
  telegramBotToken: secretOutput(),
  telegramChatId: z.string().nullable(),
  telegramApiBase: z.string().nullable(),
  lastTestAt: z.string().nullable(),
  lastTestOk: z.boolean().nullable(),
  lastTestAnswer: z.string().nullable(),
});
export type NotificationChannel = z.infer<typeof NotificationChannelSchema>;

/** Every field optional here; the kind's required fields are checked by the service against the stored row. */
export const NotificationChannelInputSchema = z.object({
  name: requiredText(200, 'Name'),
  kind: z.enum(CHANNEL_KINDS, { message: `Kind must be one of: ${CHANNEL_KINDS.join(', ')}` }),
  enabled: z
    .preprocess(
      (v) => (v === 'true' ? true : v === 'false' ? false : v),
      z.boolean({ message: 'Must be true or false' }),
    )
    .optional(),
  smtpHost: optionalText(253),
  smtpPort: portInput('Port').nullable().optional(),
  smtpSecurity: z.preprocess(
    (v) => (v === '' ? null : v),
    z.enum(SMTP_SECURITY, { message: 'Security must be none, starttls or tls' }).nullable().optional(),
  ),
  smtpUser: optionalText(200),
  smtpPassword: secretInput(),
  emailFrom: z.preprocess(
    (v) => (v === '' ? null : v),
    z.email({ message: 'From must be an email address' }).max(320).nullable().optional(),
  ),
  emailTo: z.preprocess((v) => (v === '' ? null : v), emailList.nullable().optional()),
  webhookUrl: z.preprocess((v) => (v === '' ? null : v), httpUrl('URL').nullable().optional()),
  telegramBotToken: secretInput(200),
  telegramChatId: z.preprocess(
    (v) => (v === '' ? null : typeof v === 'number' ? String(v) : v),
    z
      .string()
      .trim()
      .regex(/^(-?\d{1,20}|@[A-Za-z0-9_]{5,64})$/, 'Chat id must be a number or an @channel name')
      .nullable()
      .optional(),
  ),
  telegramApiBase: z.preprocess((v) => (v === '' ? null : v), httpUrl('Bot API address').nullable().optional()),
});
export type NotificationChannelInput = z.infer<typeof NotificationChannelInputSchema>;
export const NotificationChannelUpdateSchema = NotificationChannelInputSchema.partial();

/** The answer of a test send (also the shape of a saved channel's webhook secret when it is created). */
export const ChannelTestResultSchema = z.object({
  ok: z.boolean(),
  answer: z.string(),
  at: z.string(),
});
export type ChannelTestResult = z.infer<typeof ChannelTestResultSchema>;

// ---- Alert rules ----

export const ALERT_EVENT_LABELS = {
  domain_expiring: 'Domain expiring',
  health_failing: 'Health check failing',
  drift: 'Drift found',
  server_offline: 'Server offline',
  proxy_failing: 'Proxy failing',
  job_failed: 'Job or fleet run failed',
  launch_finished: 'Launch finished',
};
export type AlertEvent = keyof typeof ALERT_EVENT_LABELS;
export const ALERT_EVENTS = valuesOf(ALERT_EVENT_LABELS);
export const ALERT_SEVERITIES = ['info', 'warning', 'critical'] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];
export const ALERT_SEVERITY_RANK: Record<AlertSeverity, number> = { info: 1, warning: 2, critical: 3 };
export const ALERT_SEVERITY_LABELS: Record<AlertSeverity, string> = {
  info: 'Info',
  warning: 'Warning',
  critical: 'Critical',
};
export const ALERT_SCOPES = ['all', 'brand', 'filter'] as const;
export type AlertScope = (typeof ALERT_SCOPES)[number];

/** An IANA time zone name that this runtime knows. */
export const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: tz });
    return tz.length <= 64;
  } catch {
    return false;
  }
};
const hhmm = (label: string) =>
  z.preprocess(
    (v) => (v === '' ? null : v),
    z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, `${label} must be a time as HH:MM`)
      .nullable()
      .optional(),
  );
const whole = (label: string, min: number, max: number) =>
  z.preprocess(
    (v) => (v === '' ? null : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
    z
      .number({ message: `${label} must be a whole number from ${min} to ${max}` })
      .int({ message: `${label} must be a whole number from ${min} to ${max}` })
      .min(min, `${label} must be a whole number from ${min} to ${max}`)
      .max(max, `${label} must be a whole number from ${min} to ${max}`),
  );

export const AlertRuleSchema = z.object({
  _id: IdSchema,
  ruleNo: z.number().int(),
  name: z.string(),
  enabled: z.boolean(),
  events: z.array(z.enum(ALERT_EVENTS)),
  expiryDays: z.number().int(),
  healthMinutes: z.number().int(),
  scope: z.enum(ALERT_SCOPES),
  brand: z.object({ _id: IdSchema, name: z.string() }).nullable(),
  filter: z.record(z.string(), z.unknown()).nullable(),
  channels: z.array(z.object({ _id: IdSchema, name: z.string(), kind: z.enum(CHANNEL_KINDS) })),
  minSeverity: z.enum(ALERT_SEVERITIES),
  reminderMinutes: z.number().int().nullable(),
  quietStart: z.string().nullable(),
  quietEnd: z.string().nullable(),
  timeZone: z.string().nullable(),
});
export type AlertRule = z.infer<typeof AlertRuleSchema>;

export const AlertRuleInputSchema = z.object({
  name: requiredText(200, 'Name'),
  enabled: z
    .preprocess(
      (v) => (v === 'true' ? true : v === 'false' ? false : v),
      z.boolean({ message: 'Must be true or false' }),
    )
    .optional(),
  events: z
    .array(z.enum(ALERT_EVENTS, { message: `Each event must be one of: ${ALERT_EVENTS.join(', ')}` }))
    .min(1, 'Choose at least one event')
    .max(ALERT_EVENTS.length),
  expiryDays: whole('Days before expiry', 1, 365).optional(),
  healthMinutes: whole('Minutes failing', 0, 10080).optional(),
  scope: z.enum(ALERT_SCOPES, { message: 'Scope must be all, brand or filter' }).optional(),
  brandId: z.preprocess((v) => (v === '' ? null : v), IdSchema.nullable().optional()),
  /** The domains list's query (its URL parameters) for a saved filter. */
  filter: z.preprocess((v) => (v === '' ? null : v), DomainFilterPartialSchema.nullable().optional()),
  channelIds: z.array(IdSchema).min(1, 'Choose at least one channel').max(20),
  minSeverity: z.enum(ALERT_SEVERITIES, { message: 'Minimum severity must be info, warning or critical' }).optional(),
  reminderMinutes: z.preprocess(
    (v) => (v === '' ? null : v),
    whole('Reminder after (minutes)', 5, 43200).nullable().optional(),
  ),
  quietStart: hhmm('Quiet from'),
  quietEnd: hhmm('Quiet until'),
  timeZone: z.preprocess(
    (v) => (v === '' ? null : v),
    z.string().trim().refine(isTimeZone, 'Must be a time zone such as Europe/Berlin').nullable().optional(),
  ),
});
export type AlertRuleInput = z.infer<typeof AlertRuleInputSchema>;
export const AlertRuleUpdateSchema = AlertRuleInputSchema.partial();

// ---- Alerts (problems) and deliveries ----

export const ALERT_STATES = ['open', 'resolved', 'event'] as const;
export type AlertState = (typeof ALERT_STATES)[number];
/** What an alert is about; a job doing a plan's (import's, batch's) work is about its owner (jobOwner). */
export const ALERT_SUBJECTS = ['domain', 'server', 'proxy', 'job', 'launch', 'plan', 'import', 'batch'] as const;
export type AlertSubject = (typeof ALERT_SUBJECTS)[number];

export const AlertSchema = z.object({
  _id: IdSchema,
  alertNo: z.number().int(),
  key: z.string(),
  event: z.enum(ALERT_EVENTS),
  severity: z.enum(ALERT_SEVERITIES),
  state: z.enum(ALERT_STATES),
  title: z.string(),
  detail: z.string().nullable(),
  subjectKind: z.enum(ALERT_SUBJECTS),
  subjectId: z.string().nullable(),
  subjectName: z.string().nullable(),
  openedAt: z.string(),
  resolvedAt: z.string().nullable(),
  deliveries: z.number().int(),
});
export type Alert = z.infer<typeof AlertSchema>;

export const AlertListQuerySchema = z.object({
  page: z.coerce.number({ message: 'page must be a whole number' }).int().min(1).max(100_000).default(1),
  state: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(['open', 'recent'], { message: 'state must be open or recent' }).optional(),
  ),
});
export type AlertListQuery = z.infer<typeof AlertListQuerySchema>;

export const DELIVERY_OUTCOMES = ['sent', 'failed', 'retrying', 'held', 'test'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

export const DeliveryLogEntrySchema = z.object({
  id: z.number().int(),
  at: z.string(),
  channelId: IdSchema.nullable(),
  channelName: z.string(),
  channelKind: z.enum(CHANNEL_KINDS),
  event: z.string(),
  outcome: z.enum(DELIVERY_OUTCOMES),
  answer: z.string().nullable(),
  deliveryId: IdSchema.nullable(),
});
export type DeliveryLogEntry = z.infer<typeof DeliveryLogEntrySchema>;
export const DeliveryLogQuerySchema = z.object({
  page: z.coerce.number({ message: 'page must be a whole number' }).int().min(1).max(100_000).default(1),
  alertId: z.preprocess((v) => (v === '' ? undefined : v), IdSchema.optional()),
});

/** A mail the demo's local SMTP catcher received (demo mode only). */
export const DemoInboxMailSchema = z.object({
  id: z.number().int(),
  at: z.string(),
  from: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
});
export type DemoInboxMail = z.infer<typeof DemoInboxMailSchema>;

/** The webhook's JSON body (documented in the OpenAPI document under the alerts tag). */
export const WebhookPayloadSchema = z
  .object({
    deliveryId: IdSchema.describe('The same on every retry of this message (also in the Fleetdesk-Delivery header)'),
    type: z.enum(['alert.open', 'alert.reminder', 'alert.resolved', 'alert.summary', 'test']),
    sentAt: z.string().describe('ISO time the message was composed (the same on every retry)'),
    rule: z.object({ id: IdSchema, name: z.string() }).nullable(),
    summary: z.string().describe('One line saying what happened, as the other channels say it'),
    alerts: z
      .array(
        z.object({
          id: IdSchema,
          key: z.string().describe('The problem key, e.g. health:<domainId>:site_https'),
          event: z.enum(ALERT_EVENTS),
          severity: z.enum(ALERT_SEVERITIES),
          state: z.enum(ALERT_STATES),
          title: z.string(),
          subject: z.object({ kind: z.enum(ALERT_SUBJECTS), id: z.string().nullable(), name: z.string().nullable() }),
          openedAt: z.string(),
          resolvedAt: z.string().nullable(),
        }),
      )
      .describe('At most 50; `total` counts them all'),
    total: z.number().int(),
  })
  .describe(
    'POSTed as application/json, signed as Standard Webhooks says: webhook-id (the delivery id, the same on ' +
      'retries), webhook-timestamp (unix seconds), webhook-signature: v1,<base64 HMAC-SHA256 over ' +
      '"<id>.<timestamp>.<raw body>"> keyed by the base64-decoded secret after whsec_. Also, for receivers ' +
      'written before: Fleetdesk-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 with the channel secret over ' +
      '"<t>.<raw body>">. Reject a timestamp more than 5 minutes off.',
  );
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;
