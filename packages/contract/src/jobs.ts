import { z } from 'zod';
import { IdSchema, ListQuerySchema, booleanish } from './common.ts';
import type { Rule } from './rules.ts';

/** A finished job is completed, completed with failures, failed or cancelled (outcomes.ts words them). */
export const JOB_STATES = ['queued', 'running', 'completed', 'completed_with_failures', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const ACTIVE_JOB_STATES: readonly JobState[] = ['queued', 'running'];

export const JOB_KINDS = [
  'domains.generate-sitemap',
  'domains.copy-content-files',
  'domains.replacement',
  'domains.parsing',
  'servers.health-check',
  'proxies.health-check',
  'fleet.plan',
  'fleet.run',
  'imports.plan',
  'imports.run',
  'zone-files.export',
  'health.cycle',
  'health.check',
  'traffic.cycle',
  'alerts.evaluate',
  'alerts.deliver',
  'launches.run',
  'launches.batch-plan',
  'launches.batch-run',
] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const JOB_KIND_LABELS: Record<string, string> = {
  'domains.generate-sitemap': 'Generate Sitemap',
  'domains.copy-content-files': 'Copy Content Files',
  'domains.replacement': 'Domain Replacement',
  'domains.parsing': 'Domain Parsing',
  'servers.health-check': 'Server health check',
  'proxies.health-check': 'Proxy health check',
  'fleet.plan': 'Fleet plan',
  'fleet.run': 'Fleet run',
  'imports.plan': 'Import plan',
  'imports.run': 'Import run',
  'zone-files.export': 'Zone files export',
  'health.cycle': 'Fleet health checks',
  'health.check': 'Health check now',
  'traffic.cycle': 'Traffic read from Cloudflare',
  'alerts.evaluate': 'Alerts: read problems',
  'alerts.deliver': 'Alert delivery',
  'launches.run': 'Launch',
  'launches.batch-plan': 'Launch batch plan',
  'launches.batch-run': 'Launch batch run',
};

/**
 * What a job belongs to, when it does the work of a plan, an import, a launch or a batch (issue 47): such a job is
 * named by its owner's number everywhere ("Fleet plan #3", not "Fleet run #109"), and leads to its owner's page.
 * The owner's number is in the payload of jobs queued since; an older job is named by its own number.
 */
export const JOB_OWNERS = ['plan', 'import', 'batch', 'launch'] as const;
export type JobOwnerKind = (typeof JOB_OWNERS)[number];

const OWNER_OF_KIND: [prefix: string, kind: JobOwnerKind, idKey: string, noKey: string, word: string, path: string][] =
  [
    ['fleet.', 'plan', 'planId', 'planNo', 'Fleet plan', '/fleet/'],
    ['imports.', 'import', 'planId', 'planNo', 'Import', '/imports/'],
    ['launches.batch-', 'batch', 'batchId', 'batchNo', 'Launch batch', '/launches/batches/'],
    ['launches.run', 'launch', 'launchId', 'launchNo', 'Launch', '/launches/'],
  ];

export interface JobOwner {
  kind: JobOwnerKind;
  id: string;
  /** "Fleet plan #3"; null when the payload does not carry the owner's number (a job queued before it did). */
  name: string | null;
  /** The owner's page in the console. */
  path: string;
}

export function jobOwner(kind: string, payload: unknown): JobOwner | null {
  const p = (payload ?? {}) as Record<string, unknown>;
  for (const [prefix, owner, idKey, noKey, word, path] of OWNER_OF_KIND) {
    if (!kind.startsWith(prefix)) continue;
    const id = p[idKey];
    if (typeof id !== 'string') return null;
    const no = p[noKey];
    return { kind: owner, id, name: typeof no === 'number' ? `${word} #${no}` : null, path: `${path}${id}` };
  }
  return null;
}

/** A job's name: its owner's ("Fleet plan #3") when it has one, else its own ("Job #109"). */
export const jobName = (j: { kind: string; payload: unknown; jobNo: number }) =>
  jobOwner(j.kind, j.payload)?.name ?? `Job #${j.jobNo}`;

/** The areas jobs work on; the jobs routes admit any of them and each job is shown only to its area. */
export const JOB_AREAS: readonly Rule[] = ['cnv:domains', 'cnv:servers', 'cnv:proxies'];

export const JobProgressSchema = z.object({
  /** Units done and total (files, URLs, servers…); total null while unknown. */
  done: z.number().optional(),
  total: z.number().nullable().optional(),
  unit: z.string().optional(),
  bytesDone: z.number().optional(),
  bytesTotal: z.number().nullable().optional(),
  step: z.string().optional(),
  message: z.string().optional(),
  /** Jobs over many domains: each count apart (changed, already matched, skipped, failed). */
  tally: z
    .object({
      total: z.number(),
      changed: z.number(),
      same: z.number(),
      skipped: z.number(),
      failed: z.number(),
      cancelled: z.number().optional(),
      pending: z.number().optional(),
    })
    .optional(),
});
export type JobProgress = z.infer<typeof JobProgressSchema>;

export const JOB_STEP_STATES = ['pending', 'running', 'done', 'failed', 'skipped'] as const;
export const JobStepSchema = z.object({
  key: z.string(),
  label: z.string(),
  status: z.enum(JOB_STEP_STATES),
  message: z.string().nullable().optional(),
});
export type JobStep = z.infer<typeof JobStepSchema>;

export const JobSchema = z.object({
  _id: IdSchema,
  jobNo: z.number().int(),
  kind: z.string(),
  kindLabel: z.string(),
  state: z.enum(JOB_STATES),
  /** The state in words, failures counted: "Completed with failures: 2 of 5 failed". */
  stateText: z.string(),
  /** One sentence of what it did ("3 of 5 domains changed, 2 failed: see the plan"); empty while it runs. */
  summary: z.string(),
  /** "Fleet plan #3" for a job that does a plan's work (jobOwner), else "Job #109". */
  name: z.string(),
  /** Where the details are: the plan, import, batch or launch it works for, else the domain it worked on. */
  link: z
    .object({ kind: z.enum([...JOB_OWNERS, 'domain']), id: IdSchema, label: z.string(), path: z.string() })
    .nullable(),
  domainId: IdSchema.nullable(),
  domainName: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
  progress: JobProgressSchema.nullable(),
  steps: z.array(JobStepSchema).nullable(),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  attempts: z.number().int(),
  cancelRequested: z.boolean(),
  resumable: z.boolean(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  updatedAt: z.string(),
});
export type Job = z.infer<typeof JobSchema>;

export const JobListQuerySchema = ListQuerySchema.extend({
  /** One job by its id (a plan's page links to its job this way): listed whoever started it. */
  id: IdSchema.optional(),
  domainId: IdSchema.optional(),
  kind: z.enum(JOB_KINDS, { message: `kind must be one of ${JOB_KINDS.join(', ')}` }).optional(),
  /** One state, or `active` for queued and running. */
  state: z.enum([...JOB_STATES, 'active'], { message: 'state must be a job state or active' }).optional(),
  /**
   * The schedule's housekeeping runs: left out unless `include` (with the rest) or `only`; a `kind` or an `id`
   * asked for by name shows its runs whoever started them.
   */
  periodic: z.enum(['include', 'only'], { message: 'periodic must be include or only' }).optional(),
});
export type JobListQuery = z.infer<typeof JobListQuerySchema>;

/** The Jobs screen's chart: jobs ended per hour (issue 47), over the last day or two. */
export const JOBS_PER_HOUR_RANGES = [24, 48] as const;
export const JobsPerHourQuerySchema = z.object({
  hours: z.coerce
    .number({ message: 'hours must be 24 or 48' })
    .refine((n) => (JOBS_PER_HOUR_RANGES as readonly number[]).includes(n), { message: 'hours must be 24 or 48' })
    .default(24),
  periodic: z.enum(['include', 'only'], { message: 'periodic must be include or only' }).optional(),
});
export type JobsPerHourQuery = z.infer<typeof JobsPerHourQuerySchema>;
export const JobsHourSchema = z.object({
  /** The hour's start (UTC, ISO). */
  hour: z.string(),
  completed: z.number().int(),
  /** Completed with failures. */
  withFailures: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});
export type JobsHour = z.infer<typeof JobsHourSchema>;
export const JobsPerHourSchema = z.object({ hours: z.array(JobsHourSchema) });
export type JobsPerHour = z.infer<typeof JobsPerHourSchema>;

export const DomainTargetInputSchema = z.object({
  targetDomainId: z
    .string({ message: 'Choose a target domain' })
    .trim()
    .min(1, { message: 'Choose a target domain' })
    .pipe(IdSchema),
});
export type DomainTargetInput = z.infer<typeof DomainTargetInputSchema>;

export const DomainReplacementInputSchema = DomainTargetInputSchema.extend({
  createCloudFlareZone: booleanish().default(true),
  copyCloudFlareFirewallRules: booleanish().default(true),
  copyFiles: booleanish().default(true),
});
export type DomainReplacementInput = z.infer<typeof DomainReplacementInputSchema>;

/** POST /api/domains/{id}/parsing: confirmParserDisabled goes past the domain's parserEnabled = false. */
export const ParsingStartInputSchema = z
  .object({ confirmParserDisabled: booleanish().optional() })
  .nullish()
  .transform((v) => v ?? {});
export type ParsingStartInput = z.infer<typeof ParsingStartInputSchema>;

/** The reason code of the 400 that asks the operator to confirm parsing a domain whose parser is disabled. */
export const PARSER_DISABLED = 'parser_disabled';

export const PARSING_STATES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

/** A domain's parsingProgress (spec 2 §3, "map of values"): what the parsing page shows while it polls the domain. */
export const ParsingProgressSchema = z.object({
  jobId: z.string(),
  jobNo: z.number().optional(),
  state: z.enum(PARSING_STATES),
  startUrl: z.string().optional(),
  /** How it fetches: through the proxies of a region (named), or directly. */
  route: z.string().optional(),
  pagesFound: z.number().default(0),
  pagesDone: z.number().default(0),
  assets: z.number().default(0),
  bytes: z.number().default(0),
  errors: z.number().default(0),
  skipped: z.number().default(0),
  pending: z.number().default(0),
  message: z.string().optional(),
  /** Proxy changes (dropped, moved on), newest last. */
  events: z.array(z.string()).optional(),
  /** When done: the URLs that failed and why (at most 500). */
  failed: z.array(z.object({ url: z.string(), reason: z.string() })).optional(),
  stoppedBy: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
});
export type ParsingProgress = z.infer<typeof ParsingProgressSchema>;

/** Sitemap result: the files written (the index first when there is one) and the URL count. */
export const SitemapResultSchema = z.object({
  files: z.array(z.string()),
  urlCount: z.number().int(),
  index: z.string().nullable(),
});

export const CopyResultSchema = z.object({
  files: z.number().int(),
  directories: z.number().int(),
  bytes: z.number(),
  failed: z.array(z.object({ path: z.string(), error: z.string() })),
});
