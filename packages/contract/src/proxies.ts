import { z } from 'zod';
import {
  IdSchema,
  ListQuerySchema,
  booleanish,
  optionalRef,
  optionalText,
  secretInput,
  secretOutput,
} from './common.ts';
import { RefSchema } from './clouds.ts';

export const PROXY_TYPES = ['http', 'socks5'] as const;
export type ProxyType = (typeof PROXY_TYPES)[number];
export const CHECK_STATUSES = ['ok', 'error'] as const;
/** A proxy's check as the list filters it: passed, failed, or never checked. */
export const PROXY_CHECK_FILTERS = ['ok', 'error', 'unchecked'] as const;
export const PROXY_CHECK_FILTER_LABELS: Record<(typeof PROXY_CHECK_FILTERS)[number], string> = {
  ok: 'Check passed',
  error: 'Check failed',
  unchecked: 'Never checked',
};

/** The proxies list: the kit's search and page, and the check the dashboard's "Proxies failing" opens. */
export const ProxyListQuerySchema = ListQuerySchema.extend({
  check: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(PROXY_CHECK_FILTERS, { message: `check must be one of ${PROXY_CHECK_FILTERS.join(', ')}` }).optional(),
  ),
});
export type ProxyListQuery = z.infer<typeof ProxyListQuerySchema>;

const ipv4 = z.ipv4();
const ipv6 = z.ipv6();
/** One refinement rather than a union, so forms show this message instead of the first branch's. */
export const IpAddressSchema = z
  .string()
  .refine((v) => ipv4.safeParse(v).success || ipv6.safeParse(v).success, 'Must be a valid IPv4 or IPv6 address');

const emptyToNull = (v: unknown) => (v === '' ? null : v);

export const portInput = (label: string) =>
  z.preprocess(
    (v) => (v === '' ? null : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
    z
      .number({ message: `${label} must be a whole number from 1 to 65535` })
      .int({ message: `${label} must be a whole number from 1 to 65535` })
      .min(1, `${label} must be a whole number from 1 to 65535`)
      .max(65535, `${label} must be a whole number from 1 to 65535`),
  );

export const ProxySchema = z.object({
  _id: IdSchema,
  proxyNo: z.number().int(),
  isHttps: z.boolean(),
  IPAddress: z.string().nullable(),
  httpPort: z.number().int().nullable(),
  username: z.string().nullable(),
  password: secretOutput(),
  region: RefSchema.nullable(),
  proxyType: z.enum(PROXY_TYPES).nullable(),
  checkStatus: z.enum(CHECK_STATUSES).nullable(),
  checkLatencyMs: z.number().int().nullable(),
  checkError: z.string().nullable(),
  checkedAt: z.string().nullable(),
});
export type Proxy = z.infer<typeof ProxySchema>;

export const ProxyInputSchema = z.object({
  isHttps: booleanish().optional(),
  IPAddress: z.preprocess(emptyToNull, z.string().trim().pipe(IpAddressSchema).nullable().optional()),
  httpPort: portInput('Port').nullable().optional(),
  username: optionalText(200),
  password: secretInput(),
  regionId: optionalRef(),
  proxyType: z.preprocess(
    emptyToNull,
    z
      .enum(PROXY_TYPES, { message: `Type must be one of: ${PROXY_TYPES.join(', ')}` })
      .nullable()
      .optional(),
  ),
});
export type ProxyInput = z.infer<typeof ProxyInputSchema>;

export const ProxyCheckResultSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number().int().nullable(),
  error: z.string().nullable(),
  checkedAt: z.string(),
});
export type ProxyCheckResult = z.infer<typeof ProxyCheckResultSchema>;
