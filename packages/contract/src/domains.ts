import { z } from 'zod';
import { IdSchema, ListQuerySchema, booleanish, optionalRef, searchText } from './common.ts';
import { SEARCH_MAX } from './constants.ts';
import { RefSchema } from './clouds.ts';
import { isHttpUrl } from './domain-registrators.ts';
import { FIREWALL_ACTIONS, PRIORITY_MAX } from './firewall-rules.ts';
import { statusValue } from './users.ts';
import { CHECK_STATE_FILTER_VALUES, HEALTH_CHECK_KEYS, HEALTH_FILTER_VALUES, HEALTH_STATES } from './health-checks.ts';

export const DOMAIN_NAME_MAX = 253;
export const DOMAIN_NAME_MESSAGE = 'Domain name must be a valid host name, such as example.com';
export const REDIRECT_DOMAIN_MESSAGE = 'Redirect domain must be a valid host name, such as example.com';
export const PARSER_URL_MESSAGE = 'Parser URL must be an http or https URL';
export const EXPIRATION_DATE_MESSAGE = 'Expiration date must be a date (YYYY-MM-DD)';
export const DOMAIN_PRIORITY_MESSAGE = 'Priority must be a whole number, 0 or more';
/** How many firewall rules one domain may carry. */
export const DOMAIN_FIREWALL_RULES_MAX = 200;

const LDH_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * A host name in its stored form: lower-case, internationalised labels in punycode (UTS 46, through the
 * WHATWG URL parser, which Node and browsers share), one trailing dot dropped. Null when it is not a valid
 * host name of at least two labels with an alphabetic (or punycode) top level. IP addresses are not host names.
 */
export function toAsciiDomain(input: string): string | null {
  let v = input.trim().toLowerCase();
  if (v.endsWith('.')) v = v.slice(0, -1);
  // Letters of any script, digits, hyphens and dots only: nothing the URL parser would decode or split on.
  if (!v || v.length > DOMAIN_NAME_MAX * 4 || !/^[\p{L}\p{M}\p{N}.-]+$/u.test(v)) return null;
  let host: string;
  try {
    host = new URL(`http://${v}/`).hostname;
  } catch {
    return null;
  }
  if (host.length > DOMAIN_NAME_MAX) return null;
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((l) => LDH_LABEL.test(l))) return null;
  return TOP_LABEL.test(labels[labels.length - 1]!) ? host : null;
}

/** True when the text has a character outside ASCII (a search typed in Unicode). */
export const hasNonAscii = (s: string) => [...s].some((ch) => ch.charCodeAt(0) > 0x7f);

const hostName = (message: string) =>
  z.string({ message }).transform((v, ctx) => {
    const ascii = toAsciiDomain(v);
    if (ascii === null) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return ascii;
  });

const emptyToNull = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v);

/** 'YYYY-MM-DD' of a real calendar day. */
export const isIsoDate = (v: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
};

export const DomainServerRefSchema = z.object({ _id: IdSchema, IPAddress: z.string(), email: z.string().nullable() });
export const DomainCloudRefSchema = z.object({ _id: IdSchema, email: z.string() });

export const DomainFirewallRuleSchema = z.object({
  ruleId: IdSchema,
  ruleName: z.string(),
  action: z.enum(FIREWALL_ACTIONS),
  priority: z.number().int(),
});
export type DomainFirewallRule = z.infer<typeof DomainFirewallRuleSchema>;

/** One row of the Setup WAF screen: the template's fields and the domain's priority. */
export const DomainFirewallRuleDetailSchema = DomainFirewallRuleSchema.extend({ expression: z.string() });
export type DomainFirewallRuleDetail = z.infer<typeof DomainFirewallRuleDetailSchema>;

export const DomainSchema = z.object({
  _id: IdSchema,
  domainNo: z.number().int(),
  /** Stored form: lower-case punycode. */
  domainName: z.string(),
  /** For display. */
  domainNameUnicode: z.string(),
  /** Set when the name may pass for another (mixed scripts, UTS #39; `domainNameLook`). */
  domainNameWarning: z.string().nullable(),
  status: z.enum(['active', 'inactive']),
  serverId: IdSchema.nullable(),
  server: DomainServerRefSchema.nullable(),
  brandId: IdSchema.nullable(),
  brand: RefSchema.nullable(),
  cloudId: IdSchema.nullable(),
  cloud: DomainCloudRefSchema.nullable(),
  cloudZoneId: z.string().nullable(),
  cloudRulesetId: z.string().nullable(),
  parserEnabled: z.boolean(),
  isSinglePage: z.boolean(),
  parserURL: z.string().nullable(),
  parserProxyRegionId: IdSchema.nullable(),
  parserProxyRegion: RefSchema.nullable(),
  redirectDomainName: z.string().nullable(),
  redirectDomainNameUnicode: z.string().nullable(),
  isRestricted: z.boolean(),
  domainRegistratorId: IdSchema.nullable(),
  domainRegistrator: RefSchema.nullable(),
  /** 'YYYY-MM-DD' */
  domainRegistratorExpirationDate: z.string().nullable(),
  yandexWebmasterAccountId: IdSchema.nullable(),
  cloudFirewallRules: z.array(DomainFirewallRuleSchema),
  parsingStartDate: z.string().nullable(),
  parsingEndDate: z.string().nullable(),
  parsingProgress: z.record(z.string(), z.unknown()).nullable(),
  /** The worst health check result (null: never checked) and how many checks are failing, warning or unknown. */
  healthState: z.enum(HEALTH_STATES).nullable(),
  healthProblems: z.number().int(),
  /** The problems apart: how many checks fail, warn and are unknown ("4 failing · 1 warning · 2 unknown"). */
  healthCounts: z.object({ failing: z.number().int(), warning: z.number().int(), unknown: z.number().int() }),
});
export type Domain = z.infer<typeof DomainSchema>;

/**
 * A domain as the list shows it (`GET /api/domains?view=list`): what the list's columns, its optional columns and
 * the domain picker read, without the parser settings, the WAF rules and the parsing progress (issue 32: a read
 * that costs PostgreSQL and the API less). Without `view` the list answers whole domains, as the API always has
 * (decision 056).
 */
export const DomainListItemSchema = DomainSchema.pick({
  _id: true,
  domainNo: true,
  domainName: true,
  domainNameUnicode: true,
  status: true,
  serverId: true,
  server: true,
  brandId: true,
  brand: true,
  cloudId: true,
  cloud: true,
  cloudZoneId: true,
  redirectDomainName: true,
  redirectDomainNameUnicode: true,
  isRestricted: true,
  domainRegistratorId: true,
  domainRegistrator: true,
  domainRegistratorExpirationDate: true,
  yandexWebmasterAccountId: true,
  healthState: true,
  healthProblems: true,
  healthCounts: true,
});
export type DomainListItem = z.infer<typeof DomainListItemSchema>;
export const DOMAIN_LIST_VIEWS = ['full', 'list'] as const;
export type DomainListView = (typeof DOMAIN_LIST_VIEWS)[number];

/**
 * Create and update (PUT and PATCH are partial). No defaults here: a partial update must not reset an
 * omitted field, so a new domain's flags default in the database. `null` (or '') clears a reference.
 */
export const DomainInputSchema = z.object({
  domainName: z
    .string({ message: 'Domain name is required' })
    .trim()
    .min(1, { message: 'Domain name is required' })
    .pipe(hostName(DOMAIN_NAME_MESSAGE)),
  status: statusValue(),
  serverId: optionalRef(),
  brandId: optionalRef(),
  cloudId: optionalRef(),
  parserEnabled: booleanish().optional(),
  isSinglePage: booleanish().optional(),
  parserURL: z.preprocess(
    emptyToNull,
    z
      .string({ message: PARSER_URL_MESSAGE })
      .trim()
      .max(2000, { message: 'Parser URL must be at most 2000 characters' })
      .refine(isHttpUrl, { message: PARSER_URL_MESSAGE })
      .nullable()
      .optional(),
  ),
  parserProxyRegionId: optionalRef(),
  redirectDomainName: z.preprocess(emptyToNull, hostName(REDIRECT_DOMAIN_MESSAGE).nullable().optional()),
  isRestricted: booleanish().optional(),
  domainRegistratorId: optionalRef(),
  domainRegistratorExpirationDate: z.preprocess(
    emptyToNull,
    z
      .string({ message: EXPIRATION_DATE_MESSAGE })
      .trim()
      .refine(isIsoDate, { message: EXPIRATION_DATE_MESSAGE })
      .nullable()
      .optional(),
  ),
  yandexWebmasterAccountId: optionalRef(),
});
export type DomainInput = z.infer<typeof DomainInputSchema>;

export const DomainUpdateInputSchema = DomainInputSchema.partial();
export type DomainUpdateInput = z.infer<typeof DomainUpdateInputSchema>;

/** A reference filter's value for "not set". */
export const FILTER_NONE = 'none';
const absentIfEmpty = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const isUuid = (v: string) => z.uuid().safeParse(v).success;

/** A reference filter: an id, or `none` for domains without one. Empty is no filter. */
const refFilter = (name: string) => {
  // Named as the filter's label names it, not by its query key.
  const message = `${name} must be an id or "${FILTER_NONE}"`;
  return z.preprocess(
    absentIfEmpty,
    z
      .string({ message })
      .trim()
      .toLowerCase()
      .refine((v) => v === FILTER_NONE || isUuid(v), { message })
      .optional(),
  );
};

/**
 * The domain list's filters beside the search (issue 17's "Selecting domains"), on the list, the export and
 * a fleet selection. Every filter is optional; an empty value is no filter.
 */
const domainFilterShape = z.object({
  search: searchText(SEARCH_MAX),
  brandId: refFilter('Brand'),
  serverId: refFilter('Server'),
  cloudId: refFilter('Cloud'),
  domainRegistratorId: refFilter('Domain registrator'),
  status: z.preprocess(
    absentIfEmpty,
    z.enum(['active', 'inactive'], { message: 'Status must be active or inactive' }).optional(),
  ),
  /** true: the domain has a Cloudflare zone id; false: it has none. */
  hasZone: z.preprocess(
    absentIfEmpty,
    z
      .enum(['true', 'false'], { message: 'Has a zone must be true or false' })
      .transform((v) => v === 'true')
      .optional(),
  ),
  /** Domains whose registrar expiration date is before this day (a domain without a date never matches). */
  expiresBefore: z.preprocess(
    absentIfEmpty,
    z
      .string({ message: 'Expires before must be a date (YYYY-MM-DD)' })
      .trim()
      .refine(isIsoDate, { message: 'Expires before must be a date (YYYY-MM-DD)' })
      .optional(),
  ),
  /** Domains whose registrar expiration date is this day or later (with expiresBefore: a window of days). */
  expiresFrom: z.preprocess(
    absentIfEmpty,
    z
      .string({ message: 'Expires from must be a date (YYYY-MM-DD)' })
      .trim()
      .refine(isIsoDate, { message: 'Expires from must be a date (YYYY-MM-DD)' })
      .optional(),
  ),
  /** By the domain's worst health result; "problems" is failing, warning or unknown; "unchecked" never checked. */
  health: z.preprocess(
    absentIfEmpty,
    z.enum(HEALTH_FILTER_VALUES, { message: `health must be one of ${HEALTH_FILTER_VALUES.join(', ')}` }).optional(),
  ),
  /** Domains failing this check. */
  failingCheck: z.preprocess(
    absentIfEmpty,
    z.enum(HEALTH_CHECK_KEYS, { message: 'Failing check must be a health check' }).optional(),
  ),
  /** Domains by one check's result: `check` in `checkState` (any problem when no state is given). */
  check: z.preprocess(absentIfEmpty, z.enum(HEALTH_CHECK_KEYS, { message: 'check must be a health check' }).optional()),
  checkState: z.preprocess(
    absentIfEmpty,
    z
      .enum(CHECK_STATE_FILTER_VALUES, {
        message: `Check state must be one of ${CHECK_STATE_FILTER_VALUES.join(', ')}`,
      })
      .optional(),
  ),
});
/** A state without its check filters nothing the operator could mean: refused rather than ignored. */
const checkNeeded = (f: { check?: string; checkState?: string }, ctx: z.RefinementCtx) => {
  if (f.checkState && !f.check)
    ctx.addIssue({ code: 'custom', path: ['check'], message: 'A check state needs the health check it is of' });
};
export const DomainFilterSchema = domainFilterShape.superRefine(checkNeeded);
/** The filters and a page number (the fleet state export pages through a selection). */
export const DomainFilterPageSchema = domainFilterShape
  .extend({ page: ListQuerySchema.shape.page })
  .superRefine(checkNeeded);
export type DomainFilter = z.infer<typeof DomainFilterSchema>;
/** The same filters, each one absent rather than defaulted (a saved filter keeps only what was chosen). */
export const DomainFilterPartialSchema = domainFilterShape.partial().superRefine(checkNeeded);

export const DomainListQuerySchema = domainFilterShape
  .extend({
    page: ListQuerySchema.shape.page,
    /** `list`: each item as the list shows it (DomainListItemSchema); whole domains by default. */
    view: z.preprocess(
      absentIfEmpty,
      z.enum(DOMAIN_LIST_VIEWS, { message: `view must be one of ${DOMAIN_LIST_VIEWS.join(', ')}` }).optional(),
    ),
  })
  .superRefine(checkNeeded);
export type DomainListQuery = z.infer<typeof DomainListQuerySchema>;
/**
 * The domains list's optional columns (the column chooser); the spec's columns are always shown. The export
 * takes the shown ones as `columns=server,brand,…`, or `columns=none` for the spec's only (without the
 * parameter, every column as before).
 */
export const DOMAIN_OPTIONAL_COLUMNS = ['server', 'brand', 'cloud', 'registrator', 'yandexAccount'] as const;
export type DomainOptionalColumn = (typeof DOMAIN_OPTIONAL_COLUMNS)[number];
/** The export's headers of each optional column. */
export const DOMAIN_OPTIONAL_COLUMN_HEADERS: Record<DomainOptionalColumn, readonly string[]> = {
  server: ['Server'],
  brand: ['Brand'],
  cloud: ['Cloud', 'Cloud Zone Id'],
  registrator: ['Domain Registrator'],
  yandexAccount: ['Yandex Webmaster Account'],
};

export const DomainExportQuerySchema = domainFilterShape
  .extend({
    columns: z
      .string()
      .max(200, { message: 'Columns must be at most 200 characters' })
      .optional()
      .transform((v, ctx) => {
        if (v === undefined) return undefined;
        const names = v
          .split(',')
          .map((c) => c.trim())
          .filter((c) => c && c !== 'none');
        const unknown = names.filter((c) => !(DOMAIN_OPTIONAL_COLUMNS as readonly string[]).includes(c));
        if (unknown.length) {
          ctx.addIssue({
            code: 'custom',
            message: `Columns must be among ${DOMAIN_OPTIONAL_COLUMNS.join(', ')}`,
          });
          return z.NEVER;
        }
        return DOMAIN_OPTIONAL_COLUMNS.filter((c) => names.includes(c));
      }),
  })
  .superRefine(checkNeeded);

const priority = () =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
    z
      .number({ message: DOMAIN_PRIORITY_MESSAGE })
      .int({ message: DOMAIN_PRIORITY_MESSAGE })
      .min(0, { message: DOMAIN_PRIORITY_MESSAGE })
      .max(PRIORITY_MAX, { message: `Priority must be at most ${PRIORITY_MAX}` }),
  );

/** The Setup WAF save: the domain's rules in order. A repeated ruleId is ignored (the first one wins). */
export const DomainFirewallRulesInputSchema = z.object({
  cloudFirewallRules: z
    .array(z.object({ ruleId: IdSchema, priority: priority() }), {
      message: 'Firewall rules must be a list of rules, each with its priority',
    })
    .max(DOMAIN_FIREWALL_RULES_MAX, { message: `At most ${DOMAIN_FIREWALL_RULES_MAX} firewall rules` }),
});
export type DomainFirewallRulesInput = z.infer<typeof DomainFirewallRulesInputSchema>;

/** Written by the Cloudflare actions (create, link, unlink, delete zone; update firewall rules). */
export type DomainCloudZonePatch = { cloudZoneId?: string | null; cloudRulesetId?: string | null };

/** The CSV export's columns, in order. */
export const DOMAIN_EXPORT_COLUMNS = [
  'Number',
  'Domain Name',
  'Domain Name (ASCII)',
  'Redirect Domain',
  'Expiration Date',
  'Restricted',
  'Status',
  'Server',
  'Brand',
  'Cloud',
  'Domain Registrator',
  'Cloud Zone Id',
] as const;
