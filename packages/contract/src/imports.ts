import { z } from 'zod';
import { IdSchema } from './common.ts';
import { SEARCH_MAX } from './constants.ts';
import { RULE_LABELS, type Rule } from './rules.ts';
import { PlanBaseSchema } from './plans.ts';

/** Where an import reads its domains from. */
export const IMPORT_SOURCES = ['cloudflare', 'directadmin', 'ispmanager', 'registrar'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];
export const IMPORT_SOURCE_LABELS: Record<ImportSource, string> = {
  cloudflare: 'Cloudflare account',
  directadmin: 'DirectAdmin server',
  ispmanager: 'ISPmanager server',
  registrar: 'Registrar',
};

/**
 * The area whose list each source reads, as the screens that show the same list require it: a registrar
 * account's domains are the Domain Registrators area's (`GET /api/domain-registrators/{id}/domains`); a cloud's
 * zones and a panel's sites are read on domain screens (the Link Zone picker, the panel tabs). Checked when the
 * import is created, when its plan reads the source, and when it runs (docs/decisions/064).
 */
export const IMPORT_SOURCE_RULES: Record<ImportSource, Rule> = {
  cloudflare: 'cnv:domains',
  directadmin: 'cnv:domains',
  ispmanager: 'cnv:domains',
  registrar: 'cnv:domainRegistrators',
};

const SOURCE_NOUNS: Record<ImportSource, string> = {
  cloudflare: 'a Cloudflare account',
  directadmin: 'a DirectAdmin server',
  ispmanager: 'an ISPmanager server',
  registrar: 'a registrar',
};

export const IMPORT_OUTCOMES = ['create', 'link', 'skip'] as const;
export type ImportOutcome = (typeof IMPORT_OUTCOMES)[number];
export const IMPORT_STATES = [
  'planning',
  'planned',
  'running',
  'paused',
  'completed',
  'completed_with_failures',
  'cancelled',
  'failed',
] as const;
/** A name's run step (a skipped name at the plan is "skipped" from the start). */
export const IMPORT_ITEM_STATUSES = ['pending', 'running', 'done', 'skipped', 'failed', 'cancelled'] as const;
export type ImportState = (typeof IMPORT_STATES)[number];
/** A source holds at most this many names (a larger account is refused rather than cut short). */
export const IMPORT_MAX_NAMES = 100_000;

export const IMPORT_TEXT = {
  notFound: 'Import not found',
  source: 'Choose what to import from',
  sourceId: 'Choose the cloud, server or registrator to import from',
  notPlanned: 'The import is still being planned',
  notRunnable: (state: string) => `The import is ${state}; only a planned import can run`,
  nothingToDo: 'Nothing to import: every name is skipped',
  finished: (state: string) => `The import is already ${state}`,
  notRunning: (state: string) => `The import is ${state}, not running`,
  notPaused: (state: string) => `The import is ${state}, not paused`,
  noFailed: 'No name of this import failed',
  notPanel: (panel: string) => `The server has no ${panel} credentials`,
  needsRule: (source: ImportSource) =>
    `Importing from ${SOURCE_NOUNS[source]} needs the ${RULE_LABELS[IMPORT_SOURCE_RULES[source]]} area`,
  tooMany: `The source holds more than ${IMPORT_MAX_NAMES} names`,
  // Reasons shown on the plan's rows.
  newZone: (zoneId: string) => `New domain, linked to the cloud and its zone ${zoneId}`,
  linkZone: (zoneId: string) => `The domain has no zone: linked to the cloud and zone ${zoneId}`,
  alreadyZone: 'Already linked to this zone',
  otherZone: (zoneId: string) => `The domain is linked to another zone (${zoneId})`,
  otherCloud: (email: string) => `The domain uses another cloud (${email})`,
  zoneElsewhere: (name: string) => `This zone is already linked to the domain ${name}`,
  newOnServer: (ip: string) => `New domain on the server ${ip}`,
  linkServer: (ip: string) => `The domain has no server: put on ${ip}`,
  alreadyServer: 'Already on this server',
  otherServer: (ip: string) => `The domain is on another server (${ip})`,
  overflow: (ip: string, limit: number) => `The server ${ip} is full (${limit} domains): overflow, not imported`,
  newRegistrar: 'New domain, tied to this registrator',
  linkRegistrar: 'The domain has no registrator: tied to this one',
  alreadyRegistrar: 'Already in the console, tied to this registrator',
  otherRegistrar: 'Already in the console, tied to another registrator',
  badName: 'Not a domain name the console takes',
  alreadyDone: 'Already as planned',
} as const;

export const ImportPlanInputSchema = z.object({
  source: z.enum(IMPORT_SOURCES, { message: IMPORT_TEXT.source }),
  sourceId: IdSchema.or(z.undefined()).refine((v) => v !== undefined, { message: IMPORT_TEXT.sourceId }),
});
export type ImportPlanInput = z.input<typeof ImportPlanInputSchema>;

const Counts = z.object({
  total: z.number().int(),
  create: z.number().int(),
  link: z.number().int(),
  skip: z.number().int(),
});
const Run = z.object({
  total: z.number().int(),
  done: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  pending: z.number().int(),
});

export const ImportPlanSchema = PlanBaseSchema.extend({
  source: z.enum(IMPORT_SOURCES),
  sourceId: IdSchema,
  sourceLabel: z.string(),
  /** The panel users whose sites were read (a DirectAdmin admin login reads every user's); null for other sources. */
  sourceUsers: z.array(z.string()).nullable(),
  state: z.enum(IMPORT_STATES),
  counts: Counts,
  run: Run,
});
export type ImportPlan = z.infer<typeof ImportPlanSchema>;

export const ImportItemSchema = z.object({
  seq: z.number().int(),
  name: z.string(),
  nameUnicode: z.string(),
  outcome: z.enum(IMPORT_OUTCOMES),
  reason: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
  domainId: IdSchema.nullable(),
  status: z.string(),
  error: z.string().nullable(),
});
export type ImportItem = z.infer<typeof ImportItemSchema>;

export const ImportItemsQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).optional().default(1),
  search: z.string().trim().max(SEARCH_MAX).optional().default(''),
  outcome: z.enum(IMPORT_OUTCOMES).optional(),
});
export type ImportItemsQuery = z.infer<typeof ImportItemsQuerySchema>;
