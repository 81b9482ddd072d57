import { z } from 'zod';

/** The Direct Admin tab's texts and the API's refusals before DirectAdmin is called. */
export const DIRECT_ADMIN_MESSAGES = {
  noServer: 'This domain has no server. Pick one on the General tab and save first.',
  noCredentials:
    "The domain's server has no Direct Admin URI, username and password. Set them on the server's Direct Admin tab.",
  badUsername:
    "The server's Direct Admin username must be a DirectAdmin login, or admin|user to act as a user with an admin's credentials.",
  created: 'Domain created on Direct Admin',
  deleted: 'Domain deleted from Direct Admin',
  notCreated: 'The domain is not created on Direct Admin.',
  isCreated: 'The domain is created on Direct Admin.',
  deleteConfirm: (name: string) =>
    `Delete ${name} from Direct Admin? DirectAdmin removes the domain with its files, mail and settings.`,
  createFailed: 'Failed to create domain',
  deleteFailed: 'Failed to delete domain',
  fetchFailed: 'Failed to fetch data',
} as const;

/** One domain as DirectAdmin describes it (CMD_API_ADDITIONAL_DOMAINS); null where it did not say. */
export const DirectAdminDomainInfoDataSchema = z.object({
  domain: z.string(),
  username: z.string().nullable(),
  active: z.boolean().nullable(),
  suspended: z.boolean().nullable(),
  defaultDomain: z.boolean().nullable(),
  ssl: z.boolean().nullable(),
  php: z.boolean().nullable(),
  cgi: z.boolean().nullable(),
  bandwidthLimit: z.string().nullable(),
  quotaLimit: z.string().nullable(),
  ips: z.array(z.string()),
});
export type DirectAdminDomainInfoData = z.infer<typeof DirectAdminDomainInfoDataSchema>;

/** GET …/direct-admin/domain-info. */
export const DirectAdminDomainInfoSchema = z.object({
  domainCreated: z.boolean(),
  domainName: z.string(),
  domainInfoData: DirectAdminDomainInfoDataSchema.nullable(),
});
export type DirectAdminDomainInfo = z.infer<typeof DirectAdminDomainInfoSchema>;

/** POST …/direct-admin/create-domain. */
export const DirectAdminCreateResultSchema = z.object({
  domainCreated: z.literal(true),
  domainInfoData: DirectAdminDomainInfoDataSchema.nullable(),
  /** DirectAdmin's own words, e.g. "Domain Created". */
  message: z.string(),
});
export type DirectAdminCreateResult = z.infer<typeof DirectAdminCreateResultSchema>;

/** POST …/direct-admin/delete-domain. */
export const DirectAdminDeleteResultSchema = z.object({
  domainCreated: z.literal(false),
  message: z.string(),
});
export type DirectAdminDeleteResult = z.infer<typeof DirectAdminDeleteResultSchema>;

/** What DirectAdmin said when it refused, carried by the error envelope of the create and delete calls. */
export const DirectAdminServiceResponseSchema = z.object({
  error: z.string(),
  result: z.string(),
  extended: z.record(z.string(), z.string()),
});
export type DirectAdminServiceResponse = z.infer<typeof DirectAdminServiceResponseSchema>;
