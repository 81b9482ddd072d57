import { z } from 'zod';
import { DNS_RECORD_TYPES, DNS_TTL_AUTO } from './cloud-flare.ts';
import { IdSchema, ListQuerySchema, NUL_MESSAGE, hasNoNul, requiredText } from './common.ts';
import { DNS_RULE_MESSAGES, type DnsRecordDraft, dnsConflict, dnsFullName, dnsRecordProblems } from './dns-rules.ts';

/**
 * DNS templates (issue 27): a named set of records in which `{domain}` and `{serverIp}` stand for the domain and
 * its server's address. Read by launches and by the fleet's "apply DNS template" action.
 */

export const DNS_TEMPLATE_RECORDS_MAX = 100;
export const DNS_TEMPLATE_PLACEHOLDERS = ['domain', 'serverIp'] as const;
export type DnsTemplatePlaceholder = (typeof DNS_TEMPLATE_PLACEHOLDERS)[number];
/** What a template is checked against: Cloudflare's rules after these stand in for the placeholders. */
export const DNS_TEMPLATE_EXAMPLE = { domain: 'example.com', serverIp: '203.0.113.10' } as const;

export const DNS_TEMPLATE_MESSAGES = {
  recordsMin: 'A template needs at least one record',
  recordsMax: `A template holds at most ${DNS_TEMPLATE_RECORDS_MAX} records`,
  type: 'Type is required',
  typeUnknown: `Type must be one of ${DNS_RECORD_TYPES.join(', ')}`,
  name: 'Name is required (@ for the domain itself)',
  content: 'Content is required',
  ttl: DNS_RULE_MESSAGES.ttl,
  proxied: 'Proxied must be true or false',
  priority: 'Priority must be a whole number from 0 to 65535',
  placeholder: (p: string) => `Unknown placeholder {${p}}: only {domain} and {serverIp} can be used`,
  inUse: (profiles: string) => `This DNS template is used by launch profiles: ${profiles}`,
} as const;

export const DnsTemplateRecordSchema = z.object({
  type: z.enum(DNS_RECORD_TYPES),
  /** '@' is the domain itself; any other name is relative to it ('www'), or may hold {domain}. */
  name: z.string(),
  /** May hold {domain} and {serverIp}. */
  content: z.string(),
  /** 1 = Auto. */
  ttl: z.number().int(),
  proxied: z.boolean(),
  /** MX and URI records. */
  priority: z.number().int().optional(),
});
export type DnsTemplateRecord = z.infer<typeof DnsTemplateRecordSchema>;

export const DnsTemplateSchema = z.object({
  _id: IdSchema,
  dnsTemplateNo: z.number().int(),
  name: z.string(),
  records: z.array(DnsTemplateRecordSchema),
  /** True when a launch profile uses the template (it cannot be deleted then). */
  isInUse: z.boolean().optional(),
});
export type DnsTemplate = z.infer<typeof DnsTemplateSchema>;

const PLACEHOLDER_RE = /\{([^{}]*)\}/g;

/** The placeholders a text uses that are not known, in order, once each. */
export function unknownPlaceholders(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PLACEHOLDER_RE)) {
    const p = m[1] ?? '';
    if (!(DNS_TEMPLATE_PLACEHOLDERS as readonly string[]).includes(p) && !out.includes(p)) out.push(p);
  }
  return out;
}

const fill = (text: string, values: { domain: string; serverIp: string }) =>
  text.replace(PLACEHOLDER_RE, (whole, p: string) =>
    p === 'domain' ? values.domain : p === 'serverIp' ? values.serverIp : whole,
  );

/**
 * A template's records for one domain: placeholders replaced, names made full ('@' → the domain, 'www' →
 * www.<domain>), so they compare with what Cloudflare lists. Pure: the same input gives the same records.
 */
export function renderDnsTemplate(
  records: readonly DnsTemplateRecord[],
  values: { domain: string; serverIp: string },
): DnsRecordDraft[] {
  const domain = values.domain.trim().toLowerCase().replace(/\.$/, '');
  const v = { domain, serverIp: values.serverIp.trim() };
  return records.map((r) => {
    const name = fill(r.name, v);
    const draft: DnsRecordDraft = {
      type: r.type,
      name: dnsFullName(name, domain) ?? name.trim().toLowerCase(),
      content: fill(r.content, v).trim(),
      proxied: r.proxied,
      ttl: r.ttl,
    };
    if (r.priority !== undefined) draft.priority = r.priority;
    return draft;
  });
}

const trimmedText = (message: string, max: number, label: string) =>
  z
    .string({ message })
    .trim()
    .min(1, { message })
    .max(max, { message: `${label} must be at most ${max} characters` })
    .refine(hasNoNul, { message: NUL_MESSAGE });

/** What is wrong in one record, by field: unknown placeholders, else Cloudflare's rules on the example render. */
function recordProblems(r: DnsTemplateRecord): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  for (const field of ['name', 'content'] as const) {
    const unknown = unknownPlaceholders(r[field]);
    if (unknown[0] !== undefined) out.push({ field, message: DNS_TEMPLATE_MESSAGES.placeholder(unknown[0]) });
  }
  if (out.length > 0) return out;
  const content = fill(r.content, DNS_TEMPLATE_EXAMPLE);
  const name = fill(r.name, DNS_TEMPLATE_EXAMPLE);
  for (const p of dnsRecordProblems({ ...r, name, content }, DNS_TEMPLATE_EXAMPLE.domain))
    if (!out.some((o) => o.field === p.field)) out.push(p);
  return out;
}

const RecordInputSchema = z
  .object({
    type: z.preprocess(
      (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
      z.enum(DNS_RECORD_TYPES, {
        error: (iss) =>
          iss.input === undefined || iss.input === '' ? DNS_TEMPLATE_MESSAGES.type : DNS_TEMPLATE_MESSAGES.typeUnknown,
      }),
    ),
    name: trimmedText(DNS_TEMPLATE_MESSAGES.name, 255, 'Name'),
    content: trimmedText(DNS_TEMPLATE_MESSAGES.content, 4096, 'Content'),
    // The range (1, or 60..86400) is Cloudflare's rule, checked with the others below.
    ttl: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? DNS_TTL_AUTO : typeof v === 'string' ? Number(v) : v),
      z.number({ message: DNS_TEMPLATE_MESSAGES.ttl }).int({ message: DNS_TEMPLATE_MESSAGES.ttl }),
    ),
    proxied: z.preprocess(
      (v) => (v === undefined || v === null ? false : v === 'true' ? true : v === 'false' ? false : v),
      z.boolean({ message: DNS_TEMPLATE_MESSAGES.proxied }),
    ),
    priority: z.preprocess(
      (v) => (v === null || v === '' ? undefined : typeof v === 'string' ? Number(v) : v),
      z
        .number({ message: DNS_TEMPLATE_MESSAGES.priority })
        .int({ message: DNS_TEMPLATE_MESSAGES.priority })
        .min(0, { message: DNS_TEMPLATE_MESSAGES.priority })
        .max(65_535, { message: DNS_TEMPLATE_MESSAGES.priority })
        .optional(),
    ),
  })
  .superRefine((r, ctx) => {
    for (const p of recordProblems(r)) ctx.addIssue({ code: 'custom', path: [p.field], message: p.message });
  });

/**
 * The records of a template: each checked with Cloudflare's rules (dns-rules.ts) after the example values stand
 * in for the placeholders, then against the records before it (the same record twice, a CNAME beside an A).
 * Problems land on the record's field: records.2.content.
 */
export const DnsTemplateRecordsInputSchema = z
  .array(RecordInputSchema, { message: DNS_TEMPLATE_MESSAGES.recordsMin })
  .min(1, { message: DNS_TEMPLATE_MESSAGES.recordsMin })
  .max(DNS_TEMPLATE_RECORDS_MAX, { message: DNS_TEMPLATE_MESSAGES.recordsMax })
  .superRefine((records, ctx) => {
    const seen: DnsRecordDraft[] = [];
    records.forEach((r, i) => {
      // A record with its own problems has been reported on them already.
      if (recordProblems(r).length > 0) return;
      const [draft] = renderDnsTemplate([r], DNS_TEMPLATE_EXAMPLE);
      if (!draft) return;
      const clash = dnsConflict(draft, seen);
      if (clash) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: clash });
      seen.push(draft);
    });
  });

export const DnsTemplateInputSchema = z.object({
  name: requiredText(200, 'Name'),
  records: DnsTemplateRecordsInputSchema,
});
export type DnsTemplateInput = z.input<typeof DnsTemplateInputSchema>;
/** PUT and PATCH: what is sent is replaced (the records as a whole). */
export const DnsTemplateUpdateInputSchema = DnsTemplateInputSchema.partial();
export type DnsTemplateInputParsed = z.infer<typeof DnsTemplateInputSchema>;

export const DnsTemplateListQuerySchema = ListQuerySchema;
