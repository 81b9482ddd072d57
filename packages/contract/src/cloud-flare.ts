import { z } from 'zod';

/**
 * The console's Cloudflare calls under /api/domains/{id}/cloud-flare (spec 1 "Domain cloud-zone subviews",
 * spec 2 §2, §3, §4, §7 "Cloud actions", §9).
 */

export const CLOUD_FLARE_MESSAGES = {
  noCloud: 'This domain has no cloud; pick one on the Cloud tab',
  noZone: 'This domain has no Cloudflare zone; create or link one first',
  zoneIdRequired: 'Cloud zone id is required',
  zoneIdFormat: 'Cloud zone id must be 32 hexadecimal characters, as Cloudflare shows it',
} as const;

/** The code of the 409 answered when the zone already exists in the cloud's account; fields.cloudZoneId holds its id. */
export const CLOUD_ZONE_EXISTS_CODE = 'cloud_zone_exists';

/** How the console marks the WAF rules it wrote, so that it replaces only those and keeps everyone else's. */
export const FLEETDESK_RULE_DESCRIPTION_PREFIX = '[fleetdesk] ';
export const FLEETDESK_RULE_REF_PREFIX = 'fleetdesk:';

/** §9: SSL modes (strict is labelled Full strict) and TLS 1.3. */
export const SSL_MODES = ['off', 'flexible', 'full', 'strict'] as const;
export type SslMode = (typeof SSL_MODES)[number];
export const SSL_MODE_LABELS: Record<SslMode, string> = {
  off: 'Off',
  flexible: 'Flexible',
  full: 'Full',
  strict: 'Full strict',
};
export const TLS_1_3_VALUES = ['off', 'on'] as const;
export type Tls13Mode = (typeof TLS_1_3_VALUES)[number];
export const TLS_1_3_LABELS: Record<Tls13Mode, string> = { off: 'Off', on: 'On' };

/** §9: redirect status codes, default 301. */
export const REDIRECT_STATUS_CODES = [301, 302, 303, 307, 308] as const;
export type RedirectStatusCode = (typeof REDIRECT_STATUS_CODES)[number];
export const DEFAULT_REDIRECT_STATUS_CODE: RedirectStatusCode = 301;

/** Cloudflare's DNS record types. */
export const DNS_RECORD_TYPES = [
  'A',
  'AAAA',
  'CAA',
  'CERT',
  'CNAME',
  'DNSKEY',
  'DS',
  'HTTPS',
  'LOC',
  'MX',
  'NAPTR',
  'NS',
  'OPENPGPKEY',
  'PTR',
  'SMIMEA',
  'SRV',
  'SSHFP',
  'SVCB',
  'TLSA',
  'TXT',
  'URI',
] as const;
/** Only these can go through Cloudflare's proxy. */
export const PROXIABLE_DNS_TYPES: readonly string[] = ['A', 'AAAA', 'CNAME'];
/** §9: a new record's defaults. ttl 1 means Auto. */
export const DNS_RECORD_DEFAULTS = { type: 'A', proxied: true, ttl: 1 } as const;
export const DNS_TTL_AUTO = 1;
export const DNS_TTL_MAX = 86_400;
/** Cloudflare's limit of records per batch on Free plans (3,500 on paid plans, read from the zone); larger change sets are split. */
export const DNS_BATCH_LIMIT = 200;
/** One save of the DNS editor; bounded so a request stays reasonable. */
export const DNS_CHANGES_MAX = 10_000;

export const DNS_MESSAGES = {
  type: 'Type is required',
  typeUnknown: `Type must be one of ${DNS_RECORD_TYPES.join(', ')}`,
  name: 'Name is required',
  content: 'Content is required',
  ttl: 'TTL is required',
  ttlInteger: 'TTL must be a whole number (1 means Auto)',
  ttlRange: `TTL must be 1 (Auto) or between 30 and ${DNS_TTL_MAX} seconds`,
  id: 'Record id is required',
} as const;

// ---------------------------------------------------------------- zone

export const CloudZoneResultSchema = z.object({
  id: z.string().optional(),
  name: z.string(),
  name_servers: z.array(z.string()),
  status: z.string(),
});
export type CloudZoneResult = z.infer<typeof CloudZoneResultSchema>;

/** GET zone-info: a Cloudflare failure is reported in errorMessage (200), not as an error answer. */
export const CloudZoneInfoSchema = z.object({
  errorMessage: z.string().optional(),
  data: z.object({ result: CloudZoneResultSchema.nullable() }),
});
export type CloudZoneInfo = z.infer<typeof CloudZoneInfoSchema>;

export const CreateZoneResultSchema = z.object({
  cloudZoneId: z.string(),
  name: z.string(),
  status: z.string(),
  nameServers: z.array(z.string()),
});
export type CreateZoneResult = z.infer<typeof CreateZoneResultSchema>;

export const LinkZoneInputSchema = z.object({
  cloudZoneId: z
    .string({ message: CLOUD_FLARE_MESSAGES.zoneIdRequired })
    .trim()
    .min(1, { message: CLOUD_FLARE_MESSAGES.zoneIdRequired })
    .max(64, { message: CLOUD_FLARE_MESSAGES.zoneIdFormat })
    .regex(/^[0-9a-fA-F]{32}$/, { message: CLOUD_FLARE_MESSAGES.zoneIdFormat })
    .transform((v) => v.toLowerCase()),
});
export type LinkZoneInput = z.infer<typeof LinkZoneInputSchema>;

/** Zones of the domain's cloud account a page at a time, for Link Zone's picker. */
export const CLOUD_ZONES_PAGE_SIZE = 20;
export const CloudZonesQuerySchema = z.object({
  search: z.string().trim().max(253, { message: 'Search must be at most 253 characters' }).optional(),
  page: z.coerce
    .number({ message: 'Page must be a number' })
    .int({ message: 'Page must be a whole number' })
    .min(1, { message: 'Page must be at least 1' })
    .max(10_000, { message: 'Page must be at most 10000' })
    .default(1),
});
export type CloudZonesQuery = z.infer<typeof CloudZonesQuerySchema>;

export const CloudZoneListItemSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  plan: z.string().nullable(),
  /** Another of the console's domains already linked to this zone. */
  linkedDomain: z.object({ _id: z.string(), domainName: z.string() }).nullable(),
});
export type CloudZoneListItem = z.infer<typeof CloudZoneListItemSchema>;

export const CloudZoneListSchema = z.object({
  items: z.array(CloudZoneListItemSchema),
  totalCount: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type CloudZoneList = z.infer<typeof CloudZoneListSchema>;

/** What the zone actions leave on the domain. */
export const CloudZoneIdsSchema = z.object({
  cloudZoneId: z.string().nullable(),
  cloudRulesetId: z.string().nullable(),
});
export type CloudZoneIds = z.infer<typeof CloudZoneIdsSchema>;

// ---------------------------------------------------------------- settings

export const SslSettingInputSchema = z.object({
  value: z.enum(SSL_MODES, { message: `Value must be one of ${SSL_MODES.join(', ')}` }),
});
export type SslSettingInput = z.infer<typeof SslSettingInputSchema>;

export const Tls13SettingInputSchema = z.object({
  value: z.enum(TLS_1_3_VALUES, { message: `Value must be one of ${TLS_1_3_VALUES.join(', ')}` }),
});
export type Tls13SettingInput = z.infer<typeof Tls13SettingInputSchema>;

/** Cloudflare's setting object; the value is read as result.value. */
export const ZoneSettingSchema = z.object({
  result: z.object({
    id: z.string(),
    value: z.string(),
    editable: z.boolean().optional(),
    modified_on: z.string().nullable().optional(),
  }),
});
export type ZoneSetting = z.infer<typeof ZoneSettingSchema>;

// ---------------------------------------------------------------- WAF

export const PushedFirewallRuleSchema = z.object({
  ruleId: z.string(),
  ruleName: z.string(),
  action: z.string(),
  expression: z.string(),
  priority: z.number().int(),
});

export const UpdateFirewallRulesResultSchema = z.object({
  cloudRulesetId: z.string(),
  /** The console's rules as written, in order. */
  rules: z.array(PushedFirewallRuleSchema),
  /** How many rules the console did not create were kept. */
  preservedRules: z.number().int(),
  message: z.string(),
});
export type UpdateFirewallRulesResult = z.infer<typeof UpdateFirewallRulesResultSchema>;

// ---------------------------------------------------------------- DNS

export const DnsRecordSchema = z.object({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  content: z.string(),
  proxied: z.boolean(),
  ttl: z.number().int(),
  proxiable: z.boolean().optional(),
  priority: z.number().int().optional(),
});
export type DnsRecord = z.infer<typeof DnsRecordSchema>;

export const DnsRecordListSchema = z.object({ result: z.array(DnsRecordSchema) });
export type DnsRecordList = z.infer<typeof DnsRecordListSchema>;

/** §5: proxied is true only for the value "1" (or true); the JSON API also takes booleans. */
export const toProxied = (v: unknown): boolean => v === true || v === '1' || v === 1;

const dnsText = (message: string, max: number) =>
  z
    .string({ message })
    .trim()
    .min(1, { message })
    .max(max, { message: `Must be at most ${max} characters` });

const dnsTtl = () =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number.parseInt(v.trim(), 10) : v),
    z
      .number({
        error: (iss) => (iss.input === undefined || iss.input === '' ? DNS_MESSAGES.ttl : DNS_MESSAGES.ttlInteger),
      })
      .int({ message: DNS_MESSAGES.ttlInteger })
      .refine((n) => n === DNS_TTL_AUTO || (n >= 30 && n <= DNS_TTL_MAX), { message: DNS_MESSAGES.ttlRange }),
  );

const DnsRecordFieldsSchema = z.object({
  type: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
    z.enum(DNS_RECORD_TYPES, {
      error: (iss) => (iss.input === undefined || iss.input === '' ? DNS_MESSAGES.type : DNS_MESSAGES.typeUnknown),
    }),
  ),
  name: dnsText(DNS_MESSAGES.name, 255),
  content: dnsText(DNS_MESSAGES.content, 4096),
  proxied: z.preprocess(toProxied, z.boolean()),
  ttl: dnsTtl(),
  /** MX, SRV and URI records; kept as-is when left out of a patch. */
  priority: z.number().int().min(0).max(65_535).optional(),
});
export const DnsRecordPostSchema = DnsRecordFieldsSchema;
export type DnsRecordPost = z.infer<typeof DnsRecordPostSchema>;
export const DnsRecordPatchSchema = DnsRecordFieldsSchema.extend({ id: dnsText(DNS_MESSAGES.id, 64) });
export type DnsRecordPatch = z.infer<typeof DnsRecordPatchSchema>;

/** §4: changed rows are patches, removed rows deletes, new rows posts. Applied all or nothing. */
export const DnsChangesInputSchema = z
  .object({
    deletes: z.array(z.object({ id: dnsText(DNS_MESSAGES.id, 64) })).default([]),
    patches: z.array(DnsRecordPatchSchema).default([]),
    posts: z.array(DnsRecordPostSchema).default([]),
  })
  .refine((v) => v.deletes.length + v.patches.length + v.posts.length <= DNS_CHANGES_MAX, {
    message: `At most ${DNS_CHANGES_MAX} changes at once`,
  });
export type DnsChangesInput = z.input<typeof DnsChangesInputSchema>;
export type DnsChanges = z.infer<typeof DnsChangesInputSchema>;

export const DnsChangesResultSchema = z.object({
  result: z.object({
    deletes: z.array(DnsRecordSchema),
    patches: z.array(DnsRecordSchema),
    posts: z.array(DnsRecordSchema),
  }),
  /** How many batch calls the change took; more than 1 when it exceeded DNS_BATCH_LIMIT. */
  batches: z.number().int(),
  message: z.string(),
});
export type DnsChangesResult = z.infer<typeof DnsChangesResultSchema>;

// ---------------------------------------------------------------- redirects

export const REDIRECT_MESSAGES = {
  expression: 'Rule expression is required',
  target: 'Target URL is required: a static URL or a dynamic expression',
  both: 'Give either a static target URL or a dynamic expression, not both',
  url: 'Target URL must be an absolute http or https URL',
  statusCode: `Status code must be one of ${REDIRECT_STATUS_CODES.join(', ')}`,
} as const;

const emptyToUndefined = (v: unknown) => (v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v);

export const RedirectRuleSchema = z
  .object({
    /** Cloudflare's rule id; sent back so the rule is updated in place. */
    id: z.string().max(64).optional(),
    description: z.string().trim().max(500).optional(),
    enabled: z.boolean().optional(),
    ruleExpression: z
      .string({ message: REDIRECT_MESSAGES.expression })
      .trim()
      .min(1, { message: REDIRECT_MESSAGES.expression })
      .max(4096),
    targetUrlValue: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .trim()
        .max(4096)
        .regex(/^https?:\/\/\S+$/i, { message: REDIRECT_MESSAGES.url })
        .optional(),
    ),
    targetUrlExpression: z.preprocess(emptyToUndefined, z.string().trim().max(4096).optional()),
    statusCode: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? DEFAULT_REDIRECT_STATUS_CODE : Number(v)),
      z.union(
        REDIRECT_STATUS_CODES.map((c) => z.literal(c)),
        { message: REDIRECT_MESSAGES.statusCode },
      ),
    ),
    preserveQueryString: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? false : v === 'true' ? true : v === 'false' ? false : v),
      z.boolean({ message: 'Preserve query string must be true or false' }),
    ),
  })
  .superRefine((r, ctx) => {
    if (r.targetUrlValue === undefined && r.targetUrlExpression === undefined) {
      ctx.addIssue({ code: 'custom', message: REDIRECT_MESSAGES.target, path: ['targetUrlValue'] });
    }
    if (r.targetUrlValue !== undefined && r.targetUrlExpression !== undefined) {
      ctx.addIssue({ code: 'custom', message: REDIRECT_MESSAGES.both, path: ['targetUrlExpression'] });
    }
  });
export type RedirectRule = z.infer<typeof RedirectRuleSchema>;
export type RedirectRuleInput = z.input<typeof RedirectRuleSchema>;

export const RedirectRulesSchema = z.object({
  rules: z.array(RedirectRuleSchema).max(1000, { message: 'At most 1000 redirect rules' }),
});
export type RedirectRules = z.infer<typeof RedirectRulesSchema>;
export type RedirectRulesInput = z.input<typeof RedirectRulesSchema>;

/** GET and POST redirect-rules answer the rules as Cloudflare now holds them. */
export const RedirectRulesResultSchema = z.object({
  rules: z.array(
    z.object({
      id: z.string().optional(),
      description: z.string().optional(),
      enabled: z.boolean().optional(),
      ruleExpression: z.string(),
      targetUrlValue: z.string().optional(),
      targetUrlExpression: z.string().optional(),
      statusCode: z.number().int(),
      preserveQueryString: z.boolean(),
    }),
  ),
});
export type RedirectRulesResult = z.infer<typeof RedirectRulesResultSchema>;

// ---------------------------------------------------------------- cache

export const PurgeCacheResultSchema = z.object({ id: z.string(), message: z.string() });
export type PurgeCacheResult = z.infer<typeof PurgeCacheResultSchema>;
