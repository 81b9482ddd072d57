import { z } from 'zod';
import { contentRestoreOf } from './content-snapshots.ts';
import { plural } from './outcomes.ts';
import { PlanBaseSchema } from './plans.ts';
import { FLEET_IDS_MAX } from './constants.ts';
import { IdSchema, ListQuerySchema } from './common.ts';
import {
  DNS_RECORD_TYPES,
  DnsRecordPostSchema,
  RedirectRuleSchema,
  SSL_MODES,
  SSL_MODE_LABELS,
  TLS_1_3_LABELS,
  TLS_1_3_VALUES,
} from './cloud-flare.ts';
import { DOMAIN_FIREWALL_RULES_MAX, DomainFilterSchema } from './domains.ts';
import { PRIORITY_MAX } from './firewall-rules.ts';
import { HEALTH_FIXABLE_CHECKS, healthCheckOf } from './health-checks.ts';
import { DNS_TEMPLATE_RECORDS_MAX, DnsTemplateRecordSchema } from './dns-templates.ts';
import { FLEET_STATE_MESSAGES, FleetStateChangeSchema } from './fleet-state.ts';

/** How many domains one fleet plan may hold. */
export const FLEET_PLAN_MAX = 100_000;
/** Stands for each domain's name in redirect templates and DNS changes. */
export const FLEET_DOMAIN_PLACEHOLDER = '{domain}';

export const FLEET_MESSAGES = {
  notFound: 'Fleet plan not found',
  itemNotFound: 'No such row in this plan',
  empty: 'The selection holds no domains',
  tooMany: `A fleet plan may hold at most ${FLEET_PLAN_MAX.toLocaleString('en-US')} domains; narrow the filter`,
  idsTooMany: `Send at most ${FLEET_IDS_MAX} ids; for more, send the filter`,
  notPlanned: 'The plan is still being read; wait until it is planned',
  notRunnable: (state: string) => `A ${state} plan cannot be run`,
  notRunning: (state: string) => `The plan is ${state}, not running`,
  notPaused: (state: string) => `The plan is ${state}, not paused`,
  noFailed: 'No domain of this plan failed',
  finished: (state: string) => `The plan is already ${state}`,
  changedSincePlan: (was: string, now: string) =>
    `Changed since the plan (was ${was}, now ${now}); not overwritten — plan again to change it`,
  noCloud: 'The domain has no cloud',
  noZone: 'The domain has no Cloudflare zone',
  hasZone: (zoneId: string) => `The domain already has a Cloudflare zone (${zoneId})`,
  domainGone: 'The domain no longer exists',
  noRules: 'The domain has no WAF rules to push',
  noRecords: (type: string, name: string) => `No ${type} record named ${name}`,
  healthNotFailing: (state: string) => `The check is ${state}, not failing: nothing to fix`,
  healthNoExpected: 'The check has no expected value to set',
  yandexRule: 'Fixing Yandex hosts needs the Yandex Webmaster area',
  googleRule: 'Fixing Google properties and sitemaps needs the Google Search Console area',
  googleActionRule: 'Google Search Console actions need the Google Search Console area',
  googleNoProperty: 'The domain has no Google Search Console property',
  googleNotVerified: 'The property is not verified: verify it first',
  googleOtherAccount: (siteUrl: string) => `The domain already has the property ${siteUrl} of another Google account`,
  googleNoWay: 'Verifying needs a Cloudflare zone (a TXT record) or a server (a file)',
  templateNotFound: 'The DNS template does not exist',
  noServerIp: 'The domain has no server, and the template uses {serverIp}',
} as const;

/** Undo of a fleet run (issue 44): a revert plan puts back what the run changed, never what was changed since. */
export const FLEET_REVERT_MESSAGES = {
  planElsewhere: 'A revert is planned with POST /api/fleet/reverts',
  auditNotFound: 'Audit entry not found',
  failedChange: 'The change failed: there is nothing to revert',
  notAChange: 'This entry records no change the console can revert',
  noFieldToRevert:
    'This change touched no field a revert puts back (the name, the cloud and the zone have their own actions)',
  importNotFound: 'Import not found',
  importNotRun: (state: string) => `A ${state} import has not run: there is nothing to revert`,
  importRunning: 'The import is still running: let it end before reverting it',
  importNothing: 'The import created or linked no domain: there is nothing to revert',
  importGone: 'The domain no longer exists: nothing to remove or unlink',
  notStarted: (state: string) => `A ${state} plan has not run: there is nothing to revert`,
  running: 'The run is still going: pause it or let it end before reverting it',
  nothing: 'The run changed no domain: there is nothing to revert',
  kind: {
    purge_cache: 'A cache purge cannot be undone',
    create_zone: "A revert does not delete the zones the run created: delete a zone on its domain's page",
    google_verify: "A Google verification is not reverted: remove the property on the domain's Google tab",
    google_sitemap: "A sitemap submission is not reverted: remove the sitemap on the domain's Google tab",
  } as Partial<Record<string, string>>,
  nameTaken: (name: string) => `A domain named ${name} exists again: not put back`,
  healthFixNoUndo:
    'This fix cannot be put back (name servers set at the registrar, a verification or sitemap at Yandex or Google): not revertible',
  notRecorded: 'No value was recorded before this change (it predates undo): not revertible',
  changedSince: (what: string) => `Changed since: not reverted (${what})`,
  onlyChangedSince: 'Only a row changed since the run can be ticked to revert it anyway',
  notPlanned: 'Rows can be ticked only while the revert is planned and not yet run',
  forced: (what: string) => `Ticked: reverted even though it changed since the run (${what})`,
} as const;

const dnsType = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
  z.enum(DNS_RECORD_TYPES, { message: 'Record type is not one Cloudflare knows' }),
);
/** A record name: "@" for the apex, a relative name ("www"), or a full name with {domain}. */
const dnsName = z
  .string({ message: 'Record name is required' })
  .trim()
  .min(1, { message: 'Record name is required' })
  .max(255, { message: 'Record name must be at most 255 characters' });

export const FleetActionSchema = z.discriminatedUnion(
  'kind',
  [
    z.object({
      kind: z.literal('ssl'),
      value: z.enum(SSL_MODES, { message: 'SSL mode must be off, flexible, full or strict' }),
    }),
    z.object({ kind: z.literal('tls13'), value: z.enum(TLS_1_3_VALUES, { message: 'TLS 1.3 must be on or off' }) }),
    z.object({ kind: z.literal('waf_push') }),
    z.object({
      kind: z.literal('waf_set_push'),
      cloudFirewallRules: z
        .array(z.object({ ruleId: IdSchema, priority: z.number().int().min(0).max(PRIORITY_MAX) }))
        .max(DOMAIN_FIREWALL_RULES_MAX, { message: `At most ${DOMAIN_FIREWALL_RULES_MAX} firewall rules` }),
    }),
    z.object({ kind: z.literal('dns_add'), record: DnsRecordPostSchema }),
    z.object({
      kind: z.literal('dns_set'),
      type: dnsType,
      name: dnsName,
      content: z.string().trim().min(1, { message: 'Content is required' }).max(4096),
    }),
    z.object({ kind: z.literal('dns_delete'), type: dnsType, name: dnsName }),
    z.object({
      kind: z.literal('dns_template'),
      dnsTemplateId: IdSchema,
      /** The template as it was when the plan was made (set by the API, whatever was sent): the run does what the plan showed. */
      template: z
        .object({
          name: z.string().max(200),
          records: z.array(DnsTemplateRecordSchema).max(DNS_TEMPLATE_RECORDS_MAX),
        })
        .optional(),
    }),
    z.object({
      kind: z.literal('redirects'),
      rules: z.array(RedirectRuleSchema).max(100, { message: 'At most 100 redirect rules' }),
    }),
    z.object({ kind: z.literal('purge_cache') }),
    /** "Fix all" of a health check: each domain back to the value its check expects (read when planning). */
    z.object({
      kind: z.literal('health_fix'),
      check: z.enum(HEALTH_FIXABLE_CHECKS, {
        message: `check must be one of ${HEALTH_FIXABLE_CHECKS.join(', ')}`,
      }),
    }),
    z.object({ kind: z.literal('create_zone') }),
    /** Google Search Console (decision 081): each domain's property added with the account and verified. */
    z.object({ kind: z.literal('google_verify'), accountId: IdSchema }),
    /** Google Search Console: https://<domain>/sitemap.xml submitted to each domain's verified property. */
    z.object({ kind: z.literal('google_sitemap') }),
    /**
     * A desired-state file (`fleetdesk plan`): each item carries its domain's own desired state, so the action
     * only counts them. Planned through POST /api/fleet/state/plans, never through the generic route.
     */
    z.object({
      kind: z.literal('state'),
      domains: z.number().int().min(0),
      purge: z.number().int().min(0),
    }),
    z.object({ kind: z.literal('set_server'), serverId: IdSchema.nullable() }),
    z.object({ kind: z.literal('set_brand'), brandId: IdSchema.nullable() }),
    z.object({
      kind: z.literal('set_status'),
      status: z.enum(['active', 'inactive'], { message: 'Status must be active or inactive' }),
    }),
    /**
     * The inverse of a run's changes, or of one audited change (each item carries what its domain's change
     * recorded); planned through POST /api/fleet/reverts.
     */
    z.object({
      kind: z.literal('revert'),
      planId: IdSchema.optional(),
      planNo: z.number().int().optional(),
      auditId: IdSchema.optional(),
      auditNo: z.number().int().optional(),
      importId: IdSchema.optional(),
      importNo: z.number().int().optional(),
      /** The reverted plan's action kind, or the audit entry's action. */
      actionKind: z.string().max(60),
    }),
  ],
  { error: () => 'Choose an action' },
);
export type FleetAction = z.infer<typeof FleetActionSchema>;
export type FleetActionKind = FleetAction['kind'];

export const FLEET_ACTION_LABELS: Record<FleetActionKind, string> = {
  ssl: 'Set the SSL mode',
  tls13: 'Set TLS 1.3',
  waf_push: 'Push WAF rules',
  waf_set_push: 'Set firewall templates and push',
  dns_add: 'Add a DNS record',
  dns_set: 'Set DNS record content',
  dns_delete: 'Delete DNS records',
  dns_template: 'Apply a DNS template',
  redirects: 'Set redirect rules',
  purge_cache: 'Purge the cache',
  health_fix: 'Fix a health check',
  create_zone: 'Create the Cloudflare zone',
  google_verify: 'Add and verify in Google Search Console',
  google_sitemap: 'Submit the sitemap to Google',
  state: 'Apply a desired state',
  set_server: 'Set the server',
  set_brand: 'Set the brand',
  set_status: 'Set the status',
  revert: 'Revert a change',
};

/** A short sentence of what the action does, for the plan's header. */
export function describeFleetAction(a: FleetAction): string {
  switch (a.kind) {
    case 'ssl':
      return `SSL mode → ${SSL_MODE_LABELS[a.value]}`;
    case 'tls13':
      return `TLS 1.3 → ${TLS_1_3_LABELS[a.value]}`;
    case 'waf_set_push':
      return `Firewall templates → ${plural(a.cloudFirewallRules.length, 'rule')}, then push`;
    case 'dns_add':
      return `Add ${a.record.type} ${a.record.name} → ${a.record.content}`;
    case 'dns_set':
      return `${a.type} ${a.name} → ${a.content}`;
    case 'dns_delete':
      return `Delete ${a.type} ${a.name}`;
    case 'dns_template':
      return a.template
        ? `DNS template ${a.template.name} (${plural(a.template.records.length, 'record')})`
        : FLEET_ACTION_LABELS.dns_template;
    case 'redirects':
      return `Redirect rules → ${plural(a.rules.length, 'rule')}`;
    case 'revert':
      if (a.importNo !== undefined) return `Revert import #${a.importNo} (${a.actionKind})`;
      return a.planNo !== undefined
        ? `Revert plan #${a.planNo} (${FLEET_ACTION_LABELS[a.actionKind as FleetActionKind] ?? a.actionKind})`
        : `Revert audit entry № ${a.auditNo ?? '?'} (${AUDIT_REVERTIBLE[a.actionKind] ?? a.actionKind})`;
    case 'state':
      return `Desired state of ${plural(a.domains, 'domain')}${a.purge ? ` (${plural(a.purge, 'domain')} purging unlisted records)` : ''}`;
    case 'google_verify':
      return "Each domain's property in the chosen Google account's Search Console, verified";
    case 'google_sitemap':
      return "https://<domain>/sitemap.xml submitted to each domain's Google property";
    case 'health_fix': {
      const c = healthCheckOf(a.check);
      return `Fix ${c ? `${c.plane}: ${c.label}` : a.check} → each domain's expected value`;
    }
    default:
      return FLEET_ACTION_LABELS[a.kind];
  }
}

export const FleetIdsSelectionSchema = z.object({
  ids: z
    .array(IdSchema)
    .min(1, { message: FLEET_MESSAGES.empty })
    .max(FLEET_IDS_MAX, { message: FLEET_MESSAGES.idsTooMany }),
});

export const FLEET_ITEM_OUTCOMES = ['pending', 'change', 'same', 'refused'] as const;
export type FleetItemOutcome = (typeof FLEET_ITEM_OUTCOMES)[number];
/**
 * A change's run step: done (changed), changed_failing (a health fix made at the provider, its check still failing
 * for another reason: counted as changed), same (already as planned when run), skipped (changed meanwhile), failed…
 */
export const FLEET_ITEM_STATUSES = [
  'pending',
  'running',
  'done',
  'changed_failing',
  'same',
  'failed',
  'skipped',
  'cancelled',
] as const;
export type FleetItemStatus = (typeof FLEET_ITEM_STATUSES)[number];
export const FLEET_PLAN_STATES = [
  'planning',
  'planned',
  'running',
  'paused',
  'completed',
  'completed_with_failures',
  'cancelled',
  'failed',
] as const;
export type FleetPlanState = (typeof FLEET_PLAN_STATES)[number];

export const FleetItemSchema = z.object({
  seq: z.number().int(),
  /** Null for a name of a state file that the console does not hold (a refused row). */
  domainId: IdSchema.nullable(),
  domainName: z.string(),
  cloudId: IdSchema.nullable(),
  cloudEmail: z.string().nullable(),
  outcome: z.enum(FLEET_ITEM_OUTCOMES),
  before: z.string().nullable(),
  after: z.string().nullable(),
  reason: z.string().nullable(),
  status: z.enum(FLEET_ITEM_STATUSES),
  error: z.string().nullable(),
  /** A state plan's differences for the domain, one per record or setting; null for the other kinds. */
  changes: z.array(FleetStateChangeSchema).nullable(),
  /** A revert's row left alone because its domain changed since the run; it can be ticked to revert it anyway. */
  changedSince: z.boolean(),
  /** Ticked: this changed-since row is reverted all the same. */
  forced: z.boolean(),
});
export type FleetItem = z.infer<typeof FleetItemSchema>;

const Counts = z.object({
  total: z.number().int(),
  pending: z.number().int(),
  change: z.number().int(),
  same: z.number().int(),
  refused: z.number().int(),
});
const RunCounts = z.object({
  /** Domains the run will touch (the changes). */
  total: z.number().int(),
  done: z.number().int(),
  /** Of done: a fix made, its check still failing for another reason (each row says why). */
  stillFailing: z.number().int(),
  /** Already as planned when the run reached them. */
  same: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  cancelled: z.number().int(),
  pending: z.number().int(),
});

export const FleetAccountProgressSchema = RunCounts.extend({
  cloudId: IdSchema.nullable(),
  cloudEmail: z.string().nullable(),
});

export const FleetPlanSchema = PlanBaseSchema.extend({
  action: z.record(z.string(), z.unknown()),
  actionKind: z.string(),
  actionLabel: z.string(),
  description: z.string(),
  state: z.enum(FLEET_PLAN_STATES),
  /** The run's counts in words: "3 of 5 domains changed · 2 failed"; empty before the run. */
  runText: z.string(),
  counts: Counts,
  run: RunCounts,
  accounts: z.array(FleetAccountProgressSchema),
  /** Seconds left at the pace of the last minute; null when not running or not yet known. */
  etaSeconds: z.number().nullable(),
  /** Whether "Revert this run" can be offered, and why not when it cannot. */
  revert: z.object({ possible: z.boolean(), reason: z.string().nullable() }),
});
export type FleetPlan = z.infer<typeof FleetPlanSchema>;

export const FleetPlanSummarySchema = FleetPlanSchema.omit({ accounts: true });
export type FleetPlanSummary = z.infer<typeof FleetPlanSummarySchema>;

export const FleetItemsQuerySchema = ListQuerySchema.extend({
  outcome: z.enum(FLEET_ITEM_OUTCOMES, { message: 'Unknown outcome' }).optional(),
  status: z.enum(FLEET_ITEM_STATUSES, { message: 'Unknown status' }).optional(),
});
export type FleetItemsQuery = z.infer<typeof FleetItemsQuerySchema>;

/** Either the ids (a hand-picked selection) or the list's filter ("select all N matching"). */
export const FleetSelectionSchema = z.union(
  [
    FleetIdsSelectionSchema.strict(),
    z
      .object({
        // The list's query as the URL holds it; a JSON boolean for hasZone is taken too.
        filter: z.preprocess(
          (v) =>
            v && typeof v === 'object' && typeof (v as { hasZone?: unknown }).hasZone === 'boolean'
              ? { ...v, hasZone: String((v as { hasZone: boolean }).hasZone) }
              : v,
          DomainFilterSchema,
        ),
      })
      .strict(),
  ],
  { error: () => 'selection must be { ids: [...] } or { filter: {...} }' },
);
export type FleetSelection = z.infer<typeof FleetSelectionSchema>;

export const FleetPlanInputSchema = z.object({
  selection: FleetSelectionSchema,
  action: FleetActionSchema.refine((a) => a.kind !== 'state', { message: FLEET_STATE_MESSAGES.planElsewhere }).refine(
    (a) => a.kind !== 'revert',
    { message: FLEET_REVERT_MESSAGES.planElsewhere },
  ),
});
/** The schema's type, spelled out: inferring it through the refinements makes a union TypeScript gives up on. */
export type FleetPlanInput = { selection: FleetSelection; action: FleetAction };

/** Audited single-domain changes a revert can be planned from (their entries keep `undo`), in words. */
export const AUDIT_REVERTIBLE: Record<string, string> = {
  cloudflare_change_dns_records: 'a DNS change',
  cloudflare_set_ssl: 'the SSL mode',
  cloudflare_set_tls_1_3: 'TLS 1.3',
  cloudflare_set_redirect_rules: 'the redirect rules',
  cloudflare_update_firewall_rules: 'a WAF push',
  update: "the domain's fields",
};

/**
 * The domain form's fields a revert of its `update` entry puts back (from the entry's diff), with their names. The
 * zone, the cloud and the name are left out: they move with Cloudflare actions of their own.
 */
export const DOMAIN_FIELDS_REVERTIBLE = {
  status: 'Status',
  serverId: 'Server',
  brandId: 'Brand',
  domainRegistratorId: 'Registrar',
  parserEnabled: 'Parser',
  isSinglePage: 'Single page',
  parserURL: 'Parser URL',
  redirectDomainName: 'Redirect to',
  isRestricted: 'Restricted',
  domainRegistratorExpirationDate: 'Registrar expiration',
} as const;
export type DomainFieldRevertible = keyof typeof DOMAIN_FIELDS_REVERTIBLE;
const AUDIT_NOT_REVERTIBLE: Record<string, string | undefined> = {
  cloudflare_purge_cache: FLEET_REVERT_MESSAGES.kind.purge_cache,
  cloudflare_create_zone: FLEET_REVERT_MESSAGES.kind.create_zone,
};

/**
 * Whether an audit entry can be reverted, and why not when it cannot (null reason: the entry is not a change of
 * that kind at all, and says nothing). The API plans the revert from the entry's `undo`.
 */
export function auditRevertOf(e: {
  action: string;
  entity: string;
  details: Record<string, unknown> | null;
  diff?: Record<string, unknown> | null;
}): {
  possible: boolean;
  reason: string | null;
  snapshotId?: string;
} {
  if (e.entity !== 'domains') return { possible: false, reason: null };
  // A content change is restored from its snapshot (content-snapshots.ts), not planned as a fleet revert.
  const content = contentRestoreOf(e);
  if (content) return content;
  const never = AUDIT_NOT_REVERTIBLE[e.action];
  if (never) return { possible: false, reason: never };
  if (!(e.action in AUDIT_REVERTIBLE)) return { possible: false, reason: null };
  if (e.action === 'update')
    return Object.keys(e.diff ?? {}).some((k) => k in DOMAIN_FIELDS_REVERTIBLE)
      ? { possible: true, reason: null }
      : { possible: false, reason: FLEET_REVERT_MESSAGES.noFieldToRevert };
  const d = e.details ?? {};
  if (d.outcome !== 'ok') return { possible: false, reason: FLEET_REVERT_MESSAGES.failedChange };
  if (!Array.isArray(d.undo) || d.undo.length === 0)
    return {
      possible: false,
      reason:
        typeof d.undoSkipped === 'string'
          ? `Too large to keep for undo (${d.undoSkipped}): not revertible`
          : FLEET_REVERT_MESSAGES.notRecorded,
    };
  return { possible: true, reason: null };
}

/** One route plans every revert: of a run (`planId`) or of one audited change (`auditId`). */
export const FleetRevertInputSchema = z.union(
  [
    z.object({ planId: IdSchema }).strict(),
    z.object({ auditId: IdSchema }).strict(),
    z.object({ importId: IdSchema }).strict(),
  ],
  {
    error: () =>
      'Send the id of a plan to revert its run, of an audit entry to revert its change, or of an import to revert it',
  },
);
export type FleetRevertInput = z.infer<typeof FleetRevertInputSchema>;

/** A row of a plan: its plan's id and its number in the plan. */
export const FleetItemParamsSchema = z.object({
  id: IdSchema,
  seq: z.coerce
    .number({ message: 'The row must be a number' })
    .int({ message: 'The row must be a whole number' })
    .min(1, { message: 'The row must be 1 or more' })
    .max(FLEET_PLAN_MAX, { message: `The row must be at most ${FLEET_PLAN_MAX}` }),
});
/** Tick (true) or untick a revert's row that changed since its run. */
export const FleetForceInputSchema = z
  .object({ force: z.boolean({ message: 'force must be true or false' }) })
  .strict();
export type FleetForceInput = z.infer<typeof FleetForceInputSchema>;

export const FLEET_CSV_COLUMNS = ['Domain', 'Cloud', 'Outcome', 'Now', 'After', 'Reason', 'Run', 'Error'] as const;

/**
 * A run over time (issue 47): the domains each account finished per minute, by how they ended, from the minute
 * before the run's start.
 * Minutes with nothing finished are present as zeros, so a stalled account shows as a gap in its line.
 */
export const FleetTimelineMinuteSchema = z.object({
  /** The minute's start (UTC, ISO). */
  minute: z.string(),
  changed: z.number().int(),
  same: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  /** Per Cloudflare account (the plan's per-account table): domains finished that minute. */
  accounts: z.record(z.string(), z.number().int()),
  /** Per Cloudflare account: requests sent to Cloudflare that minute, by every process and job of the account. */
  requests: z.record(z.string(), z.number().int()),
});
export const FleetTimelineSchema = z.object({
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** The accounts in the run, by their cloud's e-mail (the per-account table's names). */
  accounts: z.array(z.string()),
  /** An account's requests a minute allowed by its budget, and the part of them background work may use. */
  budgetPerMinute: z.number(),
  backgroundPerMinute: z.number(),
  minutes: z.array(FleetTimelineMinuteSchema),
  /** Set when the run is longer than the minutes shown: the last FLEET_TIMELINE_MINUTES of it are. */
  truncated: z.boolean(),
});
export type FleetTimeline = z.infer<typeof FleetTimelineSchema>;
export const FLEET_TIMELINE_MINUTES = 24 * 60;
