import { z } from 'zod';
import { IdSchema, optionalRef } from './common.ts';
import { DnsRecordPostSchema, SSL_MODES } from './cloud-flare.ts';
import { DOMAIN_FIREWALL_RULES_MAX, toAsciiDomain } from './domains.ts';
import { isHttpUrl } from './domain-registrators.ts';
import { valuesOf } from './labels.ts';
import { RULE_LABELS, type Rule } from './rules.ts';

/**
 * A launch (issue 27, decision 044): one domain taken from a name to a verified, indexed site, stage by stage.
 * The stages run in this order; each is idempotent (it finds its work done and says so).
 */
export const LAUNCH_STAGES = [
  { key: 'domain', label: 'Create the domain' },
  { key: 'register', label: 'Register the name', costly: true },
  { key: 'zone', label: 'Create the Cloudflare zone' },
  { key: 'name-servers', label: "Set the registrar's name servers" },
  { key: 'zone-active', label: 'Wait for the zone to be active' },
  { key: 'dns', label: 'Add the DNS records' },
  { key: 'ssl', label: 'SSL mode and TLS 1.3' },
  { key: 'waf', label: 'Push the WAF rules' },
  { key: 'site', label: 'Create the site on the panel' },
  { key: 'content', label: 'Content' },
  { key: 'sitemap', label: 'Generate the sitemap' },
  { key: 'yandex-verify', label: 'Add and verify the host in Yandex Webmaster' },
  { key: 'yandex-sitemap', label: 'Submit the sitemap to Yandex' },
  { key: 'yandex-recrawl', label: 'Ask Yandex to recrawl the home page' },
  { key: 'google-verify', label: 'Add and verify the property in Google Search Console' },
  { key: 'google-sitemap', label: 'Submit the sitemap to Google' },
] as const;
export type LaunchStageKey = (typeof LAUNCH_STAGES)[number]['key'];
export const LAUNCH_STAGE_KEYS = LAUNCH_STAGES.map((s) => s.key) as [LaunchStageKey, ...LaunchStageKey[]];

export const LAUNCH_STATE_LABELS = {
  queued: 'Queued',
  running: 'Running',
  waiting: 'Waiting',
  needs_confirmation: 'Waiting for your confirmation',
  completed: 'Live',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
export type LaunchState = keyof typeof LAUNCH_STATE_LABELS;
export const LAUNCH_STATES = valuesOf(LAUNCH_STATE_LABELS);

export const LAUNCH_STAGE_STATE_LABELS = {
  pending: 'Pending',
  running: 'Running',
  waiting: 'Waiting',
  needs_confirmation: 'Needs confirmation',
  done: 'Done',
  already_done: 'Already done',
  skipped: 'Skipped',
  failed: 'Failed',
};
export type LaunchStageState = keyof typeof LAUNCH_STAGE_STATE_LABELS;
export const LAUNCH_STAGE_STATES = valuesOf(LAUNCH_STAGE_STATE_LABELS);
/** A stage in one of these states is not run again. */
export const LAUNCH_STAGE_FINISHED: readonly LaunchStageState[] = ['done', 'already_done', 'skipped'];

export const LaunchLinkSchema = z.object({ label: z.string(), href: z.string() });
export type LaunchLink = z.infer<typeof LaunchLinkSchema>;

export const LaunchStageSchema = z.object({
  key: z.enum(LAUNCH_STAGE_KEYS),
  label: z.string(),
  state: z.enum(LAUNCH_STAGE_STATES),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** What it did (or will do, in a plan), in one sentence. */
  detail: z.string().nullable(),
  links: z.array(LaunchLinkSchema),
  /** A waiting stage: what it waits for, since when, and the next check. */
  waitingFor: z.string().nullable(),
  since: z.string().nullable(),
  nextCheckAt: z.string().nullable(),
  attempts: z.number().int(),
  /** The provider's message of a failure. */
  error: z.string().nullable(),
});
export type LaunchStage = z.infer<typeof LaunchStageSchema>;

export const LAUNCH_MESSAGES = {
  domainName: 'Domain name must be a valid host name, such as example.com',
  contact: 'Choose the contact the name is registered with',
  registrator: 'Choose the registrator',
  copyFrom: 'Choose the domain to copy the content from',
  parseUrl: 'The URL to parse must be an http or https URL',
  profile: 'The launch profile does not exist',
  dnsTemplate: 'The DNS template does not exist',
  notFound: 'Launch not found',
  notFailed: (label: string) => `${label} has not failed; only a failed stage can be retried`,
  running: 'The launch is running; wait for it to stop or cancel it first',
  nothingToConfirm: 'The launch does not wait for a confirmation',
  /** Confirm named a stage other than the one waiting (a page read before the launch moved on). */
  otherConfirmation: (asked: string, waiting: string) =>
    `${asked} does not wait for a confirmation; ${waiting} does. Read the launch again before confirming`,
  confirmCost: 'Confirm the cost: registering buys the name and cannot be undone',
  notConsoleDomain: (name: string) =>
    `${name} is not a console domain: launch it with registration instead, where the launch asks before it buys`,
  otherRegistrator: (name: string) =>
    `${name} names another registrator; register it from that registrator's account, not on its own here`,
  alreadyInAccount: (name: string) => `${name} is already in the registrator's account: there is nothing to buy`,
  finished: 'The launch has already finished',
  /** A stage whose area the person (or token) does not hold: the plan's blocker and the run's failure. */
  needsRule: (rule: Rule) => `Needs the ${RULE_LABELS[rule]} area`,
} as const;

const hostName = (message: string) =>
  z
    .string({ message })
    .trim()
    .min(1, { message })
    .max(1000, { message })
    .transform((v, ctx) => {
      const ascii = toAsciiDomain(v);
      if (ascii === null) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return ascii;
    });

/** A DNS record of the launch: `{domain}` and `{serverIp}` stand for the domain and its server's address. */
export const LaunchDnsRecordSchema = DnsRecordPostSchema;
export type LaunchDnsRecord = z.infer<typeof LaunchDnsRecordSchema>;

export const LaunchContentSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }),
  z.object({ type: z.literal('copy'), fromDomainId: IdSchema }),
  z.object({
    type: z.literal('parse'),
    url: z.string().trim().max(2000).refine(isHttpUrl, { message: LAUNCH_MESSAGES.parseUrl }),
    regionId: optionalRef(),
  }),
]);
export type LaunchContent = z.infer<typeof LaunchContentSchema>;

export const LaunchRegistrationSchema = z.object({
  domainRegistratorId: IdSchema,
  /** False: the name is registered already (in this registrator's account). */
  register: z.boolean(),
  contactId: optionalRef(),
  years: z.number().int().min(1).max(10).default(1),
});

/** What a launch does, in full: a profile fills the defaults, the operator may override any of them. */
export const LaunchSettingsSchema = z.object({
  /** A launch profile: every field left empty here takes the profile's value. */
  profileId: optionalRef(),
  brandId: optionalRef(),
  serverId: optionalRef(),
  cloudId: optionalRef(),
  registration: LaunchRegistrationSchema.nullable().default(null),
  content: LaunchContentSchema.default({ type: 'none' }),
  /** A DNS template; its records are taken when `dnsRecords` is empty. */
  dnsTemplateId: optionalRef(),
  dnsRecords: z.array(LaunchDnsRecordSchema).max(200).default([]),
  firewallRules: z
    .array(z.object({ ruleId: IdSchema, priority: z.number().int().min(0).max(1_000_000) }))
    .max(DOMAIN_FIREWALL_RULES_MAX)
    .default([]),
  sslMode: z.enum(SSL_MODES).nullable().default(null),
  /** Left out: the profile's, else on. */
  tls13: z.boolean().optional(),
  yandexWebmasterAccountId: optionalRef(),
  verification: z.enum(['DNS', 'HTML_FILE']).default('DNS'),
  /** A Google account: the domain's property is added and verified with it, and the sitemap submitted. */
  googleSearchAccountId: optionalRef(),
});
export type LaunchSettings = z.infer<typeof LaunchSettingsSchema>;

/**
 * The area each stage acts on, as the single-domain screens that do the same thing require it (the domain's
 * registrar, Cloudflare, panel and files tabs are domain screens; its Yandex Webmaster tab is that area's), and
 * whether the launch's settings make the stage act at all. Checked at plan time (a blocker) and when the stage
 * runs, against the rules of whoever queued that run (docs/decisions/064).
 */
export const LAUNCH_STAGE_RULES: Record<LaunchStageKey, { rule: Rule; acts: (s: LaunchSettings) => boolean }> = {
  domain: { rule: 'cnv:domains', acts: () => true },
  register: { rule: 'cnv:domains', acts: (s) => !!s.registration },
  zone: { rule: 'cnv:domains', acts: (s) => !!s.cloudId },
  'name-servers': { rule: 'cnv:domains', acts: (s) => !!s.registration && !!s.cloudId },
  'zone-active': { rule: 'cnv:domains', acts: (s) => !!s.cloudId },
  dns: { rule: 'cnv:domains', acts: (s) => !!s.cloudId },
  ssl: { rule: 'cnv:domains', acts: (s) => !!s.cloudId },
  waf: { rule: 'cnv:domains', acts: (s) => !!s.cloudId },
  site: { rule: 'cnv:domains', acts: (s) => !!s.serverId },
  content: { rule: 'cnv:domains', acts: (s) => s.content.type !== 'none' },
  sitemap: { rule: 'cnv:domains', acts: (s) => !!s.serverId },
  'yandex-verify': { rule: 'cnv:yandex-webmaster', acts: (s) => !!s.yandexWebmasterAccountId },
  'yandex-sitemap': { rule: 'cnv:yandex-webmaster', acts: (s) => !!s.yandexWebmasterAccountId },
  'yandex-recrawl': { rule: 'cnv:yandex-webmaster', acts: (s) => !!s.yandexWebmasterAccountId },
  'google-verify': { rule: 'cnv:google-search', acts: (s) => !!s.googleSearchAccountId },
  'google-sitemap': { rule: 'cnv:google-search', acts: (s) => !!s.googleSearchAccountId },
};

/** The rule a stage needs with these settings that `held` lacks, or null. */
export function launchStageRuleMissing(
  key: LaunchStageKey,
  settings: LaunchSettings,
  held: readonly string[],
): Rule | null {
  const r = LAUNCH_STAGE_RULES[key];
  return r.acts(settings) && !held.includes('cnv') && !held.includes(r.rule) ? r.rule : null;
}

/** The settings as a launch answers them (already read, so plain types: answers are not parsed twice). */
export const LaunchSettingsOutputSchema = z.object({
  profileId: IdSchema.nullable().optional(),
  dnsTemplateId: IdSchema.nullable().optional(),
  brandId: IdSchema.nullable().optional(),
  serverId: IdSchema.nullable().optional(),
  cloudId: IdSchema.nullable().optional(),
  registration: z
    .object({
      domainRegistratorId: IdSchema,
      register: z.boolean(),
      contactId: IdSchema.nullable().optional(),
      years: z.number().int(),
    })
    .nullable(),
  content: z.discriminatedUnion('type', [
    z.object({ type: z.literal('none') }),
    z.object({ type: z.literal('copy'), fromDomainId: IdSchema }),
    z.object({ type: z.literal('parse'), url: z.string(), regionId: IdSchema.nullable().optional() }),
  ]),
  dnsRecords: z.array(
    z.object({
      type: z.string(),
      name: z.string(),
      content: z.string(),
      proxied: z.boolean(),
      ttl: z.number().int(),
      priority: z.number().int().optional(),
    }),
  ),
  firewallRules: z.array(z.object({ ruleId: IdSchema, priority: z.number().int() })),
  sslMode: z.enum(SSL_MODES).nullable(),
  tls13: z.boolean().optional(),
  yandexWebmasterAccountId: IdSchema.nullable().optional(),
  verification: z.enum(['DNS', 'HTML_FILE']),
  googleSearchAccountId: IdSchema.nullable().optional(),
});

export const LaunchInputSchema = LaunchSettingsSchema.extend({
  domainName: hostName(LAUNCH_MESSAGES.domainName),
  /** Registration costs money: without this the run stops before it and waits for Confirm. */
  confirmCostly: z.boolean().default(false),
  dryRun: z.boolean().default(false),
}).superRefine((v, ctx) => {
  if (v.registration?.register && !v.registration.contactId)
    ctx.addIssue({ code: 'custom', path: ['registration', 'contactId'], message: LAUNCH_MESSAGES.contact });
});
export type LaunchInput = z.input<typeof LaunchInputSchema>;
export type LaunchInputParsed = z.infer<typeof LaunchInputSchema>;

/** A blocker found at plan time: the stage it stops and why. */
export const LaunchBlockerSchema = z.object({ stage: z.enum(LAUNCH_STAGE_KEYS), message: z.string() });
export type LaunchBlocker = z.infer<typeof LaunchBlockerSchema>;

export const LaunchPlanStepSchema = z.object({
  key: z.enum(LAUNCH_STAGE_KEYS),
  label: z.string(),
  /** 'run': will do it; 'skip': not asked for; 'done': already done; 'blocked': see blocker; 'confirm': costly. */
  outcome: z.enum(['run', 'skip', 'done', 'blocked', 'confirm']),
  detail: z.string(),
});
export type LaunchPlanStep = z.infer<typeof LaunchPlanStepSchema>;

export const LaunchPlanSchema = z.object({
  domainName: z.string(),
  domainNameUnicode: z.string(),
  /** Set when the name may pass for another (mixed scripts, UTS #39; `domainNameLook`). */
  nameWarning: z.string().nullable(),
  steps: z.array(LaunchPlanStepSchema),
  blockers: z.array(LaunchBlockerSchema),
  /**
   * Set when the registration is blocked because the name is a console domain not at our registrator: what the
   * separate "register it on its own" action would use (POST /api/launches/registration/check, then /registration).
   */
  registerAlone: z
    .object({ domainRegistratorId: IdSchema, contactId: IdSchema.nullable(), years: z.number().int() })
    .nullable(),
});
export type LaunchPlan = z.infer<typeof LaunchPlanSchema>;

/** A registration's cost as the registrar prices it now (Namecheap's users.getPricing), never made up. */
export const RegistrationCostSchema = z.object({
  /** The total for the years asked, two decimals, in `currency`. */
  amount: z.string(),
  currency: z.string(),
});
export type RegistrationCost = z.infer<typeof RegistrationCostSchema>;

/** What a waiting launch's Confirm buys or changes, said before it is given. */
export const LaunchConfirmationSchema = z.object({
  /** 'domain': the changes to an existing console domain's settings; 'register': the registration. */
  stage: z.enum(['domain', 'register']),
  text: z.string(),
  /** The registration's total at the registrar's price; null (with `priceError`) when it could not be read. */
  cost: RegistrationCostSchema.nullable(),
  /** "price unavailable: Namecheap …" when the price could not be read. */
  priceError: z.string().nullable(),
});
export type LaunchConfirmation = z.infer<typeof LaunchConfirmationSchema>;

/** POST /api/launches/{id}/confirm: optionally the stage the operator saw waiting (refused if another waits). */
export const LaunchConfirmInputSchema = z.object({ stage: z.enum(['domain', 'register']).optional() });
export type LaunchConfirmInput = z.infer<typeof LaunchConfirmInputSchema>;

export const LaunchSchema = z.object({
  _id: IdSchema,
  launchNo: z.number().int(),
  domainName: z.string(),
  domainNameUnicode: z.string(),
  domainId: IdSchema.nullable(),
  state: z.enum(LAUNCH_STATES),
  confirmed: z.boolean(),
  /** The changes to an existing console domain's settings were confirmed. */
  settingsConfirmed: z.boolean(),
  /** What Confirm would buy or change while the launch waits for it (read on the launch's own page); else null. */
  confirmation: LaunchConfirmationSchema.nullable(),
  input: LaunchSettingsOutputSchema,
  stages: z.array(LaunchStageSchema),
  jobId: IdSchema.nullable(),
  error: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** Finished stages (done, already done or skipped) out of all. */
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
});
export type Launch = z.infer<typeof LaunchSchema>;

export const LaunchListQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
  state: z.enum(LAUNCH_STATES).optional(),
  search: z.string().trim().max(253).optional(),
});
export type LaunchListQuery = z.infer<typeof LaunchListQuerySchema>;

export const LaunchStageParamsSchema = z.object({ id: IdSchema, stage: z.enum(LAUNCH_STAGE_KEYS) });

// ---------------------------------------------------------------- many at once

/** How many names one batch may hold. */
export const LAUNCH_BATCH_MAX = 1000;
export const LAUNCH_BATCH_STATE_LABELS = {
  planning: 'Planning',
  planned: 'Planned',
  running: 'Running',
  paused: 'Paused',
  waiting_for_confirmation: 'Waiting for confirmation',
  completed: 'Completed',
  completed_with_failures: 'Completed with failures',
  cancelled: 'Cancelled',
  failed: 'Failed',
};
export type LaunchBatchState = keyof typeof LAUNCH_BATCH_STATE_LABELS;
export const LAUNCH_BATCH_STATES = valuesOf(LAUNCH_BATCH_STATE_LABELS);
/** A row: planned (pending or blocked), then its launch's course. */
export const LAUNCH_ROW_STATUSES = [
  'pending',
  'blocked',
  'running',
  'needs_confirmation',
  'done',
  'failed',
  'cancelled',
] as const;
export type LaunchRowStatus = (typeof LAUNCH_ROW_STATUSES)[number];

/** The columns a CSV row may override (values as people know them, not ids). */
export const LAUNCH_CSV_COLUMNS = ['domainName', 'server', 'brand', 'cloud', 'copyFrom', 'sslMode'] as const;

export const LaunchBatchRowInputSchema = z.object({
  domainName: hostName(LAUNCH_MESSAGES.domainName),
  serverId: optionalRef(),
  brandId: optionalRef(),
  cloudId: optionalRef(),
  copyFromDomainId: optionalRef(),
  sslMode: z.enum(SSL_MODES).optional(),
});
export type LaunchBatchRowInput = z.input<typeof LaunchBatchRowInputSchema>;

export const LaunchBatchInputSchema = z
  .object({
    settings: LaunchSettingsSchema,
    /** The names, one per line (pasted), each with the settings as they are. */
    names: z.string().max(200_000).optional(),
    /** Or a CSV with a header naming LAUNCH_CSV_COLUMNS (domainName first), for per-row overrides. */
    csv: z.string().max(2_000_000).optional(),
    confirmCostly: z.boolean().default(false),
  })
  .superRefine((v, ctx) => {
    if (!v.names?.trim() && !v.csv?.trim())
      ctx.addIssue({ code: 'custom', path: ['names'], message: 'Paste the names, one per line, or a CSV' });
  });
export type LaunchBatchInput = z.input<typeof LaunchBatchInputSchema>;
export type LaunchBatchInputParsed = z.infer<typeof LaunchBatchInputSchema>;

export const LaunchBatchSchema = z.object({
  _id: IdSchema,
  batchNo: z.number().int(),
  state: z.enum(LAUNCH_BATCH_STATES),
  /** The state in words (outcomes.ts): "Waiting for confirmation (4)", "Completed with failures: 1 of 5 failed". */
  stateText: z.string(),
  settings: LaunchSettingsOutputSchema,
  confirmCostly: z.boolean(),
  error: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  counts: z.record(z.enum(LAUNCH_ROW_STATUSES), z.number().int()),
  total: z.number().int(),
  /**
   * What Confirm all would buy or change (the launches waiting for a confirmation), shown before it; null if none.
   * `cost` is the registrations' total at the registrar's price, read on the batch's own page (null in the list,
   * and null with `priceError` when it could not be read).
   */
  confirmation: z
    .object({
      /** Launches waiting, of either kind. */
      names: z.number().int(),
      years: z.number().int(),
      registrations: z.number().int(),
      /** Launches waiting to change an existing console domain's settings. */
      settings: z.number().int(),
      cost: RegistrationCostSchema.nullable(),
      priceError: z.string().nullable(),
      text: z.string(),
    })
    .nullable(),
});
export type LaunchBatch = z.infer<typeof LaunchBatchSchema>;

export const LaunchBatchRowSchema = z.object({
  seq: z.number().int(),
  domainName: z.string(),
  domainNameUnicode: z.string(),
  overrides: z.record(z.string(), z.unknown()),
  status: z.enum(LAUNCH_ROW_STATUSES),
  /** The plan's blockers, or why the row's launch stopped. */
  message: z.string().nullable(),
  launchId: IdSchema.nullable(),
  /** The launch's finished stages, while it runs. */
  progress: z.object({ done: z.number().int(), total: z.number().int() }).nullable(),
});
export type LaunchBatchRow = z.infer<typeof LaunchBatchRowSchema>;

export const LaunchBatchRowsQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  status: z.enum(LAUNCH_ROW_STATUSES).optional(),
  search: z.string().trim().max(253).optional(),
});
export type LaunchBatchRowsQuery = z.infer<typeof LaunchBatchRowsQuerySchema>;

// ---------------------------------------------------------------- a held name registered on its own

/**
 * A console domain that is not at our registrator is never bought as a launch's routine step (issue 40): the
 * operator checks it first (availability and price at the registrar), then asks for its registration on its own.
 */
export const LaunchRegistrationCheckInputSchema = z.object({
  domainName: hostName(LAUNCH_MESSAGES.domainName),
  domainRegistratorId: IdSchema,
  years: z.number().int().min(1).max(10).default(1),
});
export type LaunchRegistrationCheckInput = z.input<typeof LaunchRegistrationCheckInputSchema>;

export const LaunchRegistrationCheckSchema = z.object({
  domainName: z.string(),
  domainNameUnicode: z.string(),
  /** The console's domain of that name, if any. */
  domainId: IdSchema.nullable(),
  /** Namecheap's domains.check answer. */
  available: z.boolean(),
  /** Why not, in the registrar's words. */
  reason: z.string().nullable(),
  years: z.number().int(),
  cost: RegistrationCostSchema.nullable(),
  priceError: z.string().nullable(),
  /** The answer in one sentence. */
  text: z.string(),
});
export type LaunchRegistrationCheck = z.infer<typeof LaunchRegistrationCheckSchema>;

export const LaunchRegisterAloneInputSchema = LaunchRegistrationCheckInputSchema.extend({
  contactId: optionalRef(),
  /** The operator saw the cost and confirms it: without it nothing is bought. */
  confirmCost: z.boolean().default(false),
}).superRefine((v, ctx) => {
  if (!v.contactId) ctx.addIssue({ code: 'custom', path: ['contactId'], message: LAUNCH_MESSAGES.contact });
  if (!v.confirmCost) ctx.addIssue({ code: 'custom', path: ['confirmCost'], message: LAUNCH_MESSAGES.confirmCost });
});
export type LaunchRegisterAloneInput = z.input<typeof LaunchRegisterAloneInputSchema>;

/**
 * The question a confirmation dialog asks: the stage's own text, which may already say "confirm to go on", then
 * "Go on?" only when it does not (never "…confirm to go on Go on?").
 */
export function confirmQuestion(text: string): string {
  const t = text.trim();
  if (/\bconfirm\b[^.]*[.?]?$/i.test(t)) return /[.?]$/.test(t) ? t : `${t}.`;
  return `${/[.?!]$/.test(t) ? t : `${t}.`} Go on?`;
}
