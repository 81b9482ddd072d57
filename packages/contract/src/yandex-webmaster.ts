import { z } from 'zod';
import { IdSchema, ListQuerySchema, httpUrlText, requiredText, secretOutput, secretToken } from './common.ts';

/** A Yandex Webmaster account: an OAuth token the console acts with (docs/integrations/yandex-webmaster.md). */
export const YandexWebmasterAccountSchema = z.object({
  _id: IdSchema,
  id: IdSchema,
  yandexWebmasterAccountNo: z.number().int(),
  name: z.string(),
  apiToken: secretOutput(),
  isInUseBrandId: z.boolean().optional(),
});
export type YandexWebmasterAccount = z.infer<typeof YandexWebmasterAccountSchema>;

/** apiToken: the mask, '' or absent keep the stored token (the form's "Change Api Token" unticked). */
export const YandexWebmasterAccountInputSchema = z.object({
  name: requiredText(200, 'Name'),
  apiToken: secretToken(1000),
});
export type YandexWebmasterAccountInput = z.infer<typeof YandexWebmasterAccountInputSchema>;

export const YandexWebmasterAccountListQuerySchema = ListQuerySchema.extend({
  checkInUseBrandId: IdSchema.optional(),
  checkInUseBrandIdDomainId: IdSchema.optional(),
});
export type YandexWebmasterAccountListQuery = z.infer<typeof YandexWebmasterAccountListQuerySchema>;

export const YANDEX_VERIFICATION_TYPES = ['DNS', 'HTML_FILE', 'META_TAG'] as const;
export type YandexVerificationType = (typeof YANDEX_VERIFICATION_TYPES)[number];

/** What a site publishes for each verification method (docs/integrations/yandex-webmaster.md §8). */
export function yandexVerificationMarkers(uin: string) {
  return {
    dnsTxt: `yandex-verification: ${uin}`,
    metaTag: `<meta name="yandex-verification" content="${uin}" />`,
    htmlFileName: `yandex_${uin}.html`,
    htmlFileContent: `<html>\n    <head>\n        <meta http-equiv="Content-Type" content="text/html; charset=UTF-8">\n    </head>\n    <body>Verification: ${uin}</body>\n</html>\n`,
  };
}

const hostUrlText = () =>
  requiredText(500, 'Host url').refine((v) => /^(https?:\/\/)?[^\s/?#]+(:\d+)?\/?$/i.test(v), {
    message: 'Host url must be a host name or an http or https address of a site root',
  });
export const AddHostInputSchema = z.object({ hostUrl: hostUrlText() });
export const AddSitemapInputSchema = z.object({ url: httpUrlText('Sitemap url') });
export const RecrawlInputSchema = z.object({ url: httpUrlText('Url') });
export const VerifyHostInputSchema = z.object({
  verificationType: z.enum(YANDEX_VERIFICATION_TYPES, {
    error: () => `Verification type must be one of ${YANDEX_VERIFICATION_TYPES.join(', ')}`,
  }),
});

/** Path parameters of the proxied calls: the account, and a host id as Yandex gives it (https:example.com:443). */
export const WebmasterHostParamsSchema = z.object({
  id: IdSchema,
  hostId: z
    .string()
    .min(1)
    .max(300)
    .regex(/^https?:[^\s/:]+:\d{1,5}$/, 'Host id must look like https:example.com:443'),
});
export const WebmasterSitemapParamsSchema = WebmasterHostParamsSchema.extend({
  sitemapId: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w:.-]+$/, 'Sitemap id is not valid'),
});

const hostBase = {
  host_id: z.string(),
  ascii_host_url: z.string().optional(),
  unicode_host_url: z.string().optional(),
  verified: z.boolean(),
};
export const WebmasterHostSchema = z.object({
  ...hostBase,
  main_mirror: z.object(hostBase).nullable().optional(),
  host_data_status: z.string().optional(),
  host_display_name: z.string().optional(),
});
export type WebmasterHost = z.infer<typeof WebmasterHostSchema>;

export const HostSummarySchema = z.object({
  sqi: z.number().optional(),
  excluded_pages_count: z.number().optional(),
  searchable_pages_count: z.number().optional(),
  site_problems: z.record(z.string(), z.number()).optional(),
});
export type HostSummary = z.infer<typeof HostSummarySchema>;

export const ImportantUrlSchema = z.object({
  url: z.string(),
  update_date: z.string().optional(),
  change_indicators: z.array(z.string()).optional(),
  indexing_status: z
    .object({ status: z.string().optional(), http_code: z.number().optional(), access_date: z.string().optional() })
    .optional(),
  search_status: z
    .object({
      title: z.string().optional(),
      description: z.string().optional(),
      last_access: z.string().optional(),
      excluded_url_status: z.string().optional(),
      bad_http_status: z.number().optional(),
      searchable: z.boolean().optional(),
      target_url: z.string().optional(),
    })
    .optional(),
});
export type ImportantUrl = z.infer<typeof ImportantUrlSchema>;

export const SitemapSchema = z.object({
  sitemap_id: z.string(),
  sitemap_url: z.string(),
  last_access_date: z.string().optional(),
  errors_count: z.number().optional(),
  urls_count: z.number().optional(),
  children_count: z.number().optional(),
  sources: z.array(z.string()).optional(),
  sitemap_type: z.string().optional(),
});
export type Sitemap = z.infer<typeof SitemapSchema>;

export const UserSitemapSchema = z.object({
  sitemap_id: z.string(),
  sitemap_url: z.string(),
  added_date: z.string().optional(),
});
export type UserSitemap = z.infer<typeof UserSitemapSchema>;

export const RecrawlQuotaSchema = z.object({ daily_quota: z.number(), quota_remainder: z.number() });
export type RecrawlQuota = z.infer<typeof RecrawlQuotaSchema>;

export const RecrawlTaskSchema = z.object({
  task_id: z.string(),
  url: z.string(),
  added_time: z.string().optional(),
  state: z.string(),
});
export type RecrawlTask = z.infer<typeof RecrawlTaskSchema>;

/** A URL the console holds back until a later day's quota (beyond the spec; decision 027). */
export const RecrawlBacklogItemSchema = z.object({ url: z.string(), addedAt: z.string() });
export type RecrawlBacklogItem = z.infer<typeof RecrawlBacklogItemSchema>;

export const RecrawlQueueSchema = z.object({
  tasks: z.array(RecrawlTaskSchema),
  backlog: z.array(RecrawlBacklogItemSchema),
});
export type RecrawlQueue = z.infer<typeof RecrawlQueueSchema>;

/** POST recrawl/queue: sent to Yandex now (task_id), or kept in the backlog when today's quota is spent. */
export const RecrawlResultSchema = z.object({
  task_id: z.string().nullable(),
  quota_remainder: z.number().nullable(),
  backlogged: z.boolean(),
});
export type RecrawlResult = z.infer<typeof RecrawlResultSchema>;

export const VerificationSchema = z.object({
  verification_uin: z.string().optional(),
  verification_state: z.string(),
  verification_type: z.string().optional(),
  latest_verification_time: z.string().optional(),
  fail_info: z.object({ reason: z.string().optional(), message: z.string().optional() }).optional(),
  applicable_verifiers: z.array(z.string()).optional(),
});
export type Verification = z.infer<typeof VerificationSchema>;

/** The domain's host on its webmaster account, for the domain's Yandex Webmaster tab. */
export const DomainWebmasterHostSchema = z.object({
  hostUrl: z.string(),
  host: WebmasterHostSchema.nullable(),
});
export type DomainWebmasterHost = z.infer<typeof DomainWebmasterHostSchema>;

/** One-click verification (beyond the spec): what was placed and where the check stands. */
export const OneClickVerifySchema = z.object({
  method: z.enum(['DNS', 'HTML_FILE']),
  placed: z.string(),
  verification: VerificationSchema,
  /** False when a verification was already verified or under way: nothing was placed or started this time. */
  started: z.boolean(),
});
export type OneClickVerify = z.infer<typeof OneClickVerifySchema>;
