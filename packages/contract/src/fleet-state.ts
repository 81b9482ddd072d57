import { z } from 'zod';
import {
  DNS_RECORD_TYPES,
  DNS_TTL_AUTO,
  DNS_TTL_MAX,
  REDIRECT_STATUS_CODES,
  SSL_MODES,
  TLS_1_3_VALUES,
} from './cloud-flare.ts';
import { DOMAIN_FIREWALL_RULES_MAX } from './domains.ts';
import { PRIORITY_MAX } from './firewall-rules.ts';

/**
 * The fleet as code (issue 45, decision 073): a file of each domain's desired state (DNS records, SSL mode, TLS 1.3,
 * firewall rule templates, redirect rules), written by `fleetdesk export`, planned against the console's state as a
 * fleet plan of the kind `state`. A key left out of a domain is not managed: the console leaves it as it is. DNS
 * records are managed per type and name (octoDNS's rule): a (type, name) pair the file lists is made to match it;
 * pairs it does not list are left alone unless the domain says `purge: true`.
 *
 * These schemas are the file's own (plain types, no coercion) so that they can be published as JSON Schema
 * (`packages/cli/fleet.schema.json`) for editors; the API checks each record by Cloudflare's rules when planning.
 */
export const FLEET_STATE_VERSION = 1;
/** Domains one file (and one state plan) may hold; larger fleets are split into files. */
export const FLEET_STATE_DOMAINS_MAX = 500;
/** DNS records one domain of the file may list. */
export const FLEET_STATE_RECORDS_MAX = 1000;
export const FLEET_STATE_REDIRECTS_MAX = 100;
/** Domains one export call reads (each costs about five Cloudflare calls); the client pages. */
export const FLEET_STATE_EXPORT_PAGE = 50;
/** The largest state file the API accepts as a request body. */
export const FLEET_STATE_BODY_MAX_BYTES = 16 * 1024 * 1024;

export const FLEET_STATE_MESSAGES = {
  notInConsole: 'The console holds no domain of this name',
  duplicate: (name: string) => `${name} is listed twice`,
  unknownRule: (name: string) => `No firewall rule template is named ${name}`,
  planElsewhere: 'A desired state is planned with POST /api/fleet/state/plans',
  tooMany: `A state file may hold at most ${FLEET_STATE_DOMAINS_MAX} domains; split it`,
  maxChanges: (n: number, max: number) =>
    `The plan changes ${n} domain${n === 1 ? '' : 's'}, more than the ${max} allowed (--max-changes); nothing was run`,
} as const;

export const StateDnsRecordSchema = z
  .object({
    type: z.enum(DNS_RECORD_TYPES, { message: 'type must be a DNS record type Cloudflare knows' }),
    /** "@" for the apex, a name relative to the domain ("www"), or the full name. */
    name: z.string({ message: 'name is required: "@", a relative name or the full name' }).min(1).max(255),
    content: z.string({ message: 'content is required' }).min(1, { message: 'content is required' }).max(4096),
    /** 1 is Auto (the default). */
    ttl: z
      .number()
      .int()
      .refine((n) => n === DNS_TTL_AUTO || (n >= 30 && n <= DNS_TTL_MAX), {
        message: `ttl must be 1 (Auto) or between 30 and ${DNS_TTL_MAX}`,
      })
      .optional(),
    /** Through Cloudflare's proxy; false by default. */
    proxied: z.boolean().optional(),
    /** MX, SRV and URI records. */
    priority: z.number().int().min(0).max(65_535).optional(),
  })
  .strict();
export type StateDnsRecord = z.infer<typeof StateDnsRecordSchema>;

export const StateFirewallRuleSchema = z
  .object({
    /** The firewall rule template's name, as the console's Firewall Rules screen shows it. */
    rule: z.string({ message: "rule is required: the template's name" }).min(1).max(200),
    priority: z.number().int().min(0).max(PRIORITY_MAX),
  })
  .strict();
export type StateFirewallRule = z.infer<typeof StateFirewallRuleSchema>;

/** A single redirect, as the console's redirect editor shows it (the same field names as the API's). */
export const StateRedirectRuleSchema = z
  .object({
    description: z.string().max(500).optional(),
    enabled: z.boolean().optional(),
    ruleExpression: z.string().min(1).max(4096),
    targetUrlValue: z
      .string()
      .max(4096)
      .regex(/^https?:\/\/\S+$/i, { message: 'The target URL must be an http or https URL' })
      .optional(),
    targetUrlExpression: z.string().min(1).max(4096).optional(),
    statusCode: z.union(REDIRECT_STATUS_CODES.map((c) => z.literal(c))).optional(),
    preserveQueryString: z.boolean().optional(),
  })
  .strict()
  .refine((r) => (r.targetUrlValue === undefined) !== (r.targetUrlExpression === undefined), {
    message: 'Give the target URL or the target expression, one of them',
  });
export type StateRedirectRule = z.infer<typeof StateRedirectRuleSchema>;

export const StateDomainSchema = z
  .object({
    domain: z.string({ message: 'domain is required' }).min(1, { message: 'domain is required' }).max(253),
    /** Delete the DNS records of (type, name) pairs the file does not list (octoDNS's rule); false by default. */
    purge: z.boolean().optional(),
    ssl: z.enum(SSL_MODES, { message: 'ssl must be off, flexible, full or strict' }).optional(),
    tls13: z.enum(TLS_1_3_VALUES, { message: 'tls13 must be on or off' }).optional(),
    /** The firewall rule templates the domain has (pushed to its zone); [] for none. */
    firewall: z.array(StateFirewallRuleSchema).max(DOMAIN_FIREWALL_RULES_MAX).optional(),
    /** The zone's single redirects, in order; [] for none. */
    redirects: z.array(StateRedirectRuleSchema).max(FLEET_STATE_REDIRECTS_MAX).optional(),
    dns: z.array(StateDnsRecordSchema).max(FLEET_STATE_RECORDS_MAX).optional(),
  })
  .strict();
export type StateDomain = z.infer<typeof StateDomainSchema>;

export const FleetStateFileSchema = z
  .object({
    version: z.literal(FLEET_STATE_VERSION),
    domains: z.array(StateDomainSchema).max(FLEET_STATE_DOMAINS_MAX, { message: FLEET_STATE_MESSAGES.tooMany }),
  })
  .strict()
  .superRefine((f, ctx) => {
    const seen = new Set<string>();
    f.domains.forEach((d, i) => {
      const key = d.domain.trim().toLowerCase().replace(/\.$/, '');
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: ['domains', i, 'domain'], message: FLEET_STATE_MESSAGES.duplicate(key) });
      seen.add(key);
    });
  });
export type FleetStateFile = z.infer<typeof FleetStateFileSchema>;

export const FLEET_STATE_AREAS = ['dns', 'ssl', 'tls13', 'firewall', 'redirects'] as const;

/** One domain the export could not read (no zone, Cloudflare refused): left out of the file, said why. */
export const FleetStateSkippedSchema = z.object({ domain: z.string(), reason: z.string() });
export const FleetStateExportSchema = z.object({
  version: z.literal(FLEET_STATE_VERSION),
  domains: z.array(StateDomainSchema),
  skipped: z.array(FleetStateSkippedSchema),
  page: z.number().int(),
  /** More domains match the filter: ask for the next page. */
  hasMore: z.boolean(),
});
export type FleetStateExport = z.infer<typeof FleetStateExportSchema>;

/** One difference of a domain's state, as a plan's item lists it (and the client prints as a diff line). */
export const FleetStateChangeSchema = z.object({
  area: z.enum(FLEET_STATE_AREAS),
  op: z.enum(['add', 'change', 'remove']),
  /** What changes: "A www.example.com", "SSL mode". */
  subject: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
});
export type FleetStateChange = z.infer<typeof FleetStateChangeSchema>;

/** Running a plan: refused when it would change more domains than `maxChanges` (DNSControl's, octoDNS's safety). */
export const FleetRunInputSchema = z
  .object({
    maxChanges: z
      .number({ message: 'The most domains to change must be a whole number' })
      .int({ message: 'The most domains to change must be a whole number' })
      .min(0, { message: 'The most domains to change must be 0 or more' })
      .max(1_000_000, { message: 'The most domains to change must be at most 1,000,000' })
      .optional(),
  })
  .strict();
export type FleetRunInput = z.infer<typeof FleetRunInputSchema>;

/** The JSON Schema of the file, for editors (the committed packages/cli/fleet.schema.json is this). */
export function fleetStateJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(FleetStateFileSchema, { target: 'draft-2020-12', io: 'input' }),
    title: 'Fleetdesk fleet state file',
    description:
      "Each domain's desired state for `fleetdesk plan` and `fleetdesk apply`. A key left out is not managed. " +
      'DNS records are managed per (type, name); with `purge: true` the pairs not listed are deleted.',
  };
}
