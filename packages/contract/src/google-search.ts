import { z } from 'zod';
import { IdSchema, ListQuerySchema, NUL_MESSAGE, hasNoNul, httpUrlText, requiredText, secretOutput } from './common.ts';
import { SECRET_MASK } from './constants.ts';

/**
 * Google Search Console (shared/docs/integrations/google-search.md): accounts are service-account keys, a domain
 * has at most one property (a domain property `sc-domain:<domain>` or a URL-prefix one `https://<domain>/`).
 */

/** The scopes the console asks for: Search Console read and write, and Site Verification. */
export const GOOGLE_SCOPES = [
  'https://www.googleapis.com/auth/webmasters',
  'https://www.googleapis.com/auth/siteverification',
] as const;

export const GOOGLE_KEY_MAX_CHARS = 20_000;

/** A Google account: its service-account key is stored sealed and never shown again. */
export const GoogleSearchAccountSchema = z.object({
  _id: IdSchema,
  id: IdSchema,
  googleSearchAccountNo: z.number().int(),
  name: z.string(),
  clientEmail: z.string(),
  projectId: z.string().nullable(),
  serviceAccountKey: secretOutput(),
});
export type GoogleSearchAccount = z.infer<typeof GoogleSearchAccountSchema>;

/** serviceAccountKey: the key file's JSON; the mask, '' or absent keep the stored key (required on create). */
export const GoogleSearchAccountInputSchema = z.object({
  name: requiredText(200, 'Name'),
  serviceAccountKey: z.preprocess(
    (v) => (v === SECRET_MASK || v === '' || v === null ? undefined : v),
    z
      .string()
      .max(GOOGLE_KEY_MAX_CHARS, { message: `Must be at most ${GOOGLE_KEY_MAX_CHARS} characters` })
      .refine(hasNoNul, { message: NUL_MESSAGE })
      .optional(),
  ),
});
export type GoogleSearchAccountInput = z.infer<typeof GoogleSearchAccountInputSchema>;

export const GoogleSearchAccountListQuerySchema = ListQuerySchema;
export type GoogleSearchAccountListQuery = z.infer<typeof GoogleSearchAccountListQuerySchema>;

/** The fields of a service-account key file the console uses. */
export interface GoogleServiceAccountKey {
  type: 'service_account';
  client_email: string;
  private_key: string;
  private_key_id: string;
  token_uri: string;
  project_id?: string;
}

/**
 * Reads a key file's JSON: the key, or the first thing wrong with it as a sentence for the form. The private key's
 * content is checked by the server (node:crypto), and the key as a whole by a token request.
 */
export function parseServiceAccountKey(text: string): { key: GoogleServiceAccountKey } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { error: 'The key must be the JSON key file of a service account' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return { error: 'The key must be the JSON key file of a service account' };
  const o = v as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : '');
  if (o.type !== 'service_account') return { error: 'The key must be of type "service_account"' };
  if (!/^[^\s@]{1,200}@[^\s@]{1,200}$/.test(str('client_email'))) return { error: 'The key has no client_email' };
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(str('private_key')))
    return { error: 'The key has no private_key in PEM form' };
  if (!/^[\w-]{1,200}$/.test(str('private_key_id'))) return { error: 'The key has no private_key_id' };
  let uri: URL | undefined;
  try {
    uri = new URL(str('token_uri'));
  } catch {
    uri = undefined;
  }
  if (!uri || (uri.protocol !== 'https:' && uri.protocol !== 'http:') || uri.username || uri.password)
    return { error: 'The key has no token_uri (an http or https URL)' };
  const project = str('project_id');
  return {
    key: {
      type: 'service_account',
      client_email: str('client_email'),
      private_key: str('private_key'),
      private_key_id: str('private_key_id'),
      token_uri: uri.href,
      ...(project ? { project_id: project.slice(0, 200) } : {}),
    },
  };
}

export const GOOGLE_PROPERTY_KINDS = ['domain', 'url'] as const;
export type GooglePropertyKind = (typeof GOOGLE_PROPERTY_KINDS)[number];

/** `sc-domain:example.com` for a domain property, `https://example.com/` for a URL-prefix property. */
export const googleSiteUrl = (kind: GooglePropertyKind, domainName: string) =>
  kind === 'domain' ? `sc-domain:${domainName}` : `https://${domainName}/`;

export const GOOGLE_PERMISSION_LEVELS = [
  'siteOwner',
  'siteFullUser',
  'siteRestrictedUser',
  'siteUnverifiedUser',
] as const;

/** A property the account's service account has in Search Console (sites.list's WmxSite). */
export const GoogleSiteSchema = z.object({ siteUrl: z.string(), permissionLevel: z.string() });
export type GoogleSite = z.infer<typeof GoogleSiteSchema>;

/** The domain's Google tab: which account and property, and where Google says it stands. */
export const GoogleDomainStateSchema = z.object({
  domainName: z.string(),
  hasZone: z.boolean(),
  hasServer: z.boolean(),
  property: z
    .object({
      accountId: IdSchema,
      accountName: z.string(),
      clientEmail: z.string(),
      siteUrl: z.string(),
      kind: z.enum(GOOGLE_PROPERTY_KINDS),
      /** Google's permission level of the account on the property; null when Google no longer lists it. */
      permissionLevel: z.string().nullable(),
      verified: z.boolean(),
    })
    .nullable(),
});
export type GoogleDomainState = z.infer<typeof GoogleDomainStateSchema>;

export const AddGooglePropertyInputSchema = z.object({
  accountId: IdSchema,
  kind: z.enum(GOOGLE_PROPERTY_KINDS, { error: () => 'Kind must be domain or url' }),
});
export type AddGooglePropertyInput = z.infer<typeof AddGooglePropertyInputSchema>;

export const GoogleVerifyResultSchema = z.object({
  method: z.enum(['DNS_TXT', 'FILE']),
  /** What was put in place: the TXT record, or the file's name. */
  placed: z.string(),
  siteUrl: z.string(),
  owners: z.array(z.string()),
  permissionLevel: z.string().nullable(),
});
export type GoogleVerifyResult = z.infer<typeof GoogleVerifyResultSchema>;

export const GoogleSitemapInputSchema = z.object({ url: httpUrlText('Sitemap url') });
export const GoogleSitemapQuerySchema = z.object({ url: httpUrlText('Sitemap url') });
export const GoogleInspectInputSchema = z.object({ url: httpUrlText('Url') });

/** WmxSitemap as the discovery document gives it (counts are int64, sent as strings). */
export const GoogleSitemapSchema = z.object({
  path: z.string(),
  lastSubmitted: z.string().optional(),
  lastDownloaded: z.string().optional(),
  isPending: z.boolean().optional(),
  isSitemapsIndex: z.boolean().optional(),
  type: z.string().optional(),
  warnings: z.string().optional(),
  errors: z.string().optional(),
  contents: z
    .array(z.object({ type: z.string().optional(), submitted: z.string().optional(), indexed: z.string().optional() }))
    .optional(),
});
export type GoogleSitemap = z.infer<typeof GoogleSitemapSchema>;

/** UrlInspectionResult: index status, mobile usability (when Google returns it) and the link to Google's page. */
export const GoogleInspectionSchema = z.object({
  inspectionResultLink: z.string().optional(),
  indexStatusResult: z
    .object({
      verdict: z.string().optional(),
      coverageState: z.string().optional(),
      robotsTxtState: z.string().optional(),
      indexingState: z.string().optional(),
      lastCrawlTime: z.string().optional(),
      pageFetchState: z.string().optional(),
      googleCanonical: z.string().optional(),
      userCanonical: z.string().optional(),
      crawledAs: z.string().optional(),
      sitemap: z.array(z.string()).optional(),
      referringUrls: z.array(z.string()).optional(),
    })
    .optional(),
  mobileUsabilityResult: z
    .object({
      verdict: z.string().optional(),
      issues: z
        .array(
          z.object({
            issueType: z.string().optional(),
            severity: z.string().optional(),
            message: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});
export type GoogleInspection = z.infer<typeof GoogleInspectionSchema>;

export const GoogleAnalyticsRowSchema = z.object({
  key: z.string(),
  clicks: z.number(),
  impressions: z.number(),
  ctr: z.number(),
  position: z.number(),
});
export type GoogleAnalyticsRow = z.infer<typeof GoogleAnalyticsRowSchema>;

export const GOOGLE_ANALYTICS_DAYS = 28;
export const GOOGLE_ANALYTICS_TOP = 25;

/** The last 28 days: one row a day (days without data left out, as Google does), and the top queries and pages. */
export const GoogleAnalyticsSchema = z.object({
  startDate: z.string(),
  endDate: z.string(),
  days: z.array(GoogleAnalyticsRowSchema),
  queries: z.array(GoogleAnalyticsRowSchema),
  pages: z.array(GoogleAnalyticsRowSchema),
});
export type GoogleAnalytics = z.infer<typeof GoogleAnalyticsSchema>;
