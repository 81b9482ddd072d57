import { z } from 'zod';
import { SSL_MODES } from './cloud-flare.ts';
import { IdSchema, ListQuerySchema, NUL_MESSAGE, hasNoNul, requiredText } from './common.ts';

/**
 * Launch profiles (issue 27): everything a launch needs except the domain name, so that launching is
 * "name + profile". Server and cloud are always needed; the other references may stay empty (no brand, a name
 * registered elsewhere, no DNS template, no Yandex Webmaster account).
 */

export const CONTENT_SOURCE_KINDS = ['none', 'copy', 'parse'] as const;
export type ContentSourceKind = (typeof CONTENT_SOURCE_KINDS)[number];
export const CONTENT_SOURCE_LABELS: Record<ContentSourceKind, string> = {
  none: 'Nothing',
  copy: 'Copy from a domain',
  parse: 'Parse a URL',
};
export const LAUNCH_PROFILE_FIREWALL_RULES_MAX = 100;

export const LAUNCH_PROFILE_MESSAGES = {
  brandId: 'Brand must be a valid id',
  serverId: 'Server is required',
  cloudId: 'Cloud is required',
  domainRegistratorId: 'Domain registrator must be a valid id',
  registrarToRegister: 'Pick the registrator that registers the name',
  contactToRegister: 'Pick the contact the name is registered to',
  contentKind: `Content source must be one of ${CONTENT_SOURCE_KINDS.join(', ')}`,
  contentDomainId: 'Pick the domain whose content is copied',
  contentUrl: 'URL to parse must be an http or https URL',
  contentRegionId: 'Pick the region whose proxies parse the URL',
  firewallRuleIds: 'Firewall rules must be a list of ids',
  firewallRulesMax: `At most ${LAUNCH_PROFILE_FIREWALL_RULES_MAX} firewall rules`,
  firewallRulesTwice: 'A firewall rule is listed twice',
  sslMode: `SSL mode must be one of ${SSL_MODES.join(', ')}`,
  tls13: 'TLS 1.3 must be true or false',
  register: 'Register must be true or false',
  missing: (what: string) => `The ${what} does not exist`,
  missingFirewallRules: (n: number) =>
    n === 1 ? 'A firewall rule of the list does not exist' : `${n} firewall rules of the list do not exist`,
} as const;

export const ContentSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('copy'), domainId: IdSchema }),
  z.object({ kind: z.literal('parse'), url: z.string(), regionId: IdSchema }),
]);
export type ContentSource = z.infer<typeof ContentSourceSchema>;

export const LaunchProfileSchema = z.object({
  _id: IdSchema,
  launchProfileNo: z.number().int(),
  name: z.string(),
  brandId: IdSchema.nullable(),
  serverId: IdSchema,
  cloudId: IdSchema,
  domainRegistratorId: IdSchema.nullable(),
  /** true: the launch registers the name; false: it is registered already. */
  register: z.boolean(),
  domainRegistratorContactId: IdSchema.nullable(),
  contentSource: ContentSourceSchema,
  dnsTemplateId: IdSchema.nullable(),
  /** Firewall rule templates pushed to the zone, in this order. */
  firewallRuleIds: z.array(IdSchema),
  sslMode: z.enum(SSL_MODES),
  tls13: z.boolean(),
  yandexWebmasterAccountId: IdSchema.nullable(),
  /** The launch adds and verifies the domain's Google property with this account, then submits the sitemap. */
  googleSearchAccountId: IdSchema.nullable(),
});
export type LaunchProfile = z.infer<typeof LaunchProfileSchema>;

const ref = (message: string) =>
  z.preprocess((v) => (v === '' || v === undefined ? null : v), z.uuid({ message }).toLowerCase().nullable());
const requiredRef = (message: string) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), z.uuid({ message }).toLowerCase());
const bool = (message: string, fallback: boolean) =>
  z.preprocess(
    (v) => (v === undefined || v === null ? fallback : v === 'true' ? true : v === 'false' ? false : v),
    z.boolean({ message }),
  );

const ContentSourceInputSchema = z.preprocess(
  (v) => (v === undefined || v === null ? { kind: 'none' } : v),
  z.discriminatedUnion(
    'kind',
    [
      z.object({ kind: z.literal('none') }),
      z.object({ kind: z.literal('copy'), domainId: requiredRef(LAUNCH_PROFILE_MESSAGES.contentDomainId) }),
      z.object({
        kind: z.literal('parse'),
        url: z
          .string({ message: LAUNCH_PROFILE_MESSAGES.contentUrl })
          .trim()
          .max(2000, { message: 'URL to parse must be at most 2000 characters' })
          .refine(hasNoNul, { message: NUL_MESSAGE })
          .pipe(z.url({ protocol: /^https?$/, message: LAUNCH_PROFILE_MESSAGES.contentUrl })),
        regionId: requiredRef(LAUNCH_PROFILE_MESSAGES.contentRegionId),
      }),
    ],
    { error: () => LAUNCH_PROFILE_MESSAGES.contentKind },
  ),
);

export const LaunchProfileInputSchema = z
  .object({
    name: requiredText(200, 'Name'),
    brandId: ref(LAUNCH_PROFILE_MESSAGES.brandId),
    serverId: requiredRef(LAUNCH_PROFILE_MESSAGES.serverId),
    cloudId: requiredRef(LAUNCH_PROFILE_MESSAGES.cloudId),
    domainRegistratorId: ref(LAUNCH_PROFILE_MESSAGES.domainRegistratorId),
    register: bool(LAUNCH_PROFILE_MESSAGES.register, false),
    domainRegistratorContactId: ref('Contact must be a valid id'),
    contentSource: ContentSourceInputSchema,
    dnsTemplateId: ref('DNS template must be a valid id'),
    firewallRuleIds: z.preprocess(
      (v) => (v === undefined || v === null ? [] : v),
      z
        .array(z.uuid({ message: LAUNCH_PROFILE_MESSAGES.firewallRuleIds }).toLowerCase(), {
          message: LAUNCH_PROFILE_MESSAGES.firewallRuleIds,
        })
        .max(LAUNCH_PROFILE_FIREWALL_RULES_MAX, { message: LAUNCH_PROFILE_MESSAGES.firewallRulesMax })
        .refine((ids) => new Set(ids).size === ids.length, { message: LAUNCH_PROFILE_MESSAGES.firewallRulesTwice }),
    ),
    sslMode: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? 'strict' : v),
      z.enum(SSL_MODES, { message: LAUNCH_PROFILE_MESSAGES.sslMode }),
    ),
    tls13: bool(LAUNCH_PROFILE_MESSAGES.tls13, true),
    yandexWebmasterAccountId: ref('Yandex Webmaster account must be a valid id'),
    googleSearchAccountId: ref('Google account must be a valid id'),
  })
  .superRefine((p, ctx) => {
    // Registering needs someone to register with and someone to register to.
    if (p.register && !p.domainRegistratorId)
      ctx.addIssue({
        code: 'custom',
        path: ['domainRegistratorId'],
        message: LAUNCH_PROFILE_MESSAGES.registrarToRegister,
      });
    if (p.register && !p.domainRegistratorContactId)
      ctx.addIssue({
        code: 'custom',
        path: ['domainRegistratorContactId'],
        message: LAUNCH_PROFILE_MESSAGES.contactToRegister,
      });
  });
export type LaunchProfileInput = z.input<typeof LaunchProfileInputSchema>;
/** PUT and PATCH take the whole profile, as its form sends it: the register rule reads several fields at once. */
export const LaunchProfileUpdateInputSchema = LaunchProfileInputSchema;
export type LaunchProfileInputParsed = z.infer<typeof LaunchProfileInputSchema>;

export const LaunchProfileListQuerySchema = ListQuerySchema;
