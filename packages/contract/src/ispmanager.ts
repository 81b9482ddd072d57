import { z } from 'zod';

/** The error code of GET …/ispmanager/site-info when the panel has no site for the domain. */
export const SITE_NOT_CREATED_CODE = 'siteNotCreated';

export const ISPMANAGER_MESSAGES = {
  noServer: 'This domain has no server. Pick one on the General tab and save first.',
  noCredentials:
    "The domain's server has no ISP Manager URI, username and password. Set them on the server's ISP Manager tab.",
  siteNotCreated: 'The site is not created on ISP Manager.',
  siteCreated: 'The site is created on ISP Manager.',
  infoUnparsable: 'The site exists on ISP Manager, but its information could not be read.',
  rawAnswer: 'Raw answer',
  created: 'Site created on ISP Manager',
  createFailed: 'Failed to create site',
  fetchFailed: 'Failed to fetch data',
} as const;

/** The site's details from the panel's web-domain form; null where it did not say. */
export const IspSiteInfoDataSchema = z.object({
  name: z.string(),
  owner: z.string().nullable(),
  home: z.string().nullable(),
  aliases: z.string().nullable(),
  email: z.string().nullable(),
  ipaddrs: z.string().nullable(),
  php: z.string().nullable(),
  phpVersion: z.string().nullable(),
  secure: z.string().nullable(),
  active: z.string().nullable(),
});
export type IspSiteInfoData = z.infer<typeof IspSiteInfoDataSchema>;

/**
 * GET …/ispmanager/site-info and POST …/create-site. With siteInfoData null the panel's answer could not be read,
 * and rawAnswer holds it (bounded).
 */
export const IspSiteInfoSchema = z.object({
  siteCreated: z.literal(true),
  domainName: z.string(),
  siteInfoData: IspSiteInfoDataSchema.nullable(),
  rawAnswer: z.string().nullable(),
});
export type IspSiteInfo = z.infer<typeof IspSiteInfoSchema>;
