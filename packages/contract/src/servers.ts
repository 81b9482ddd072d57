import { z } from 'zod';
import {
  CREDENTIAL_MESSAGES,
  IdSchema,
  ListQuerySchema,
  hasNoUrlCredentials,
  isUserSafe,
  urlCredentialsMessage,
  optionalText,
  secretOutput,
  secretPassword,
} from './common.ts';
import { IpAddressSchema, portInput } from './proxies.ts';

export const SERVER_STATUSES = ['online', 'offline', 'unknown'] as const;
export type ServerStatus = (typeof SERVER_STATUSES)[number];

/** The servers list: the kit's search and page, and the status the dashboard's figures open. */
export const ServerListQuerySchema = ListQuerySchema.extend({
  status: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(SERVER_STATUSES, { message: `status must be one of ${SERVER_STATUSES.join(', ')}` }).optional(),
  ),
});
export type ServerListQuery = z.infer<typeof ServerListQuerySchema>;

const emptyToNull = (v: unknown) => (v === '' ? null : v);
const optionalUrl = (label: string) =>
  z.preprocess(
    emptyToNull,
    z
      .string()
      .trim()
      .max(2000)
      .pipe(z.url({ protocol: /^https?$/, message: `${label} must be an http or https URL` }))
      .refine(hasNoUrlCredentials, urlCredentialsMessage(label))
      .nullable()
      .optional(),
  );

export const ServerSchema = z.object({
  _id: IdSchema,
  serverNo: z.number().int(),
  IPAddress: z.string(),
  email: z.string().nullable(),
  domainsLimitQty: z.number().int(),
  username: z.string(),
  sshPort: z.number().int(),
  domainsPath: z.string().nullable(),
  ispmanagerUri: z.string().nullable(),
  ispmanagerUsername: z.string().nullable(),
  ispmanagerPassword: secretOutput(),
  /** Accept the ISP Manager panel's self-signed TLS certificate (port 1500 ships with one). */
  ispmanagerAcceptSelfSigned: z.boolean(),
  directAdminUri: z.string().nullable(),
  directAdminUsername: z.string().nullable(),
  directAdminPassword: secretOutput(),
  domainsQty: z.number().int(),
  status: z.enum(SERVER_STATUSES),
  /** Bytes free on domainsPath at the last check. */
  freeSpace: z.number().nullable(),
  totalSpace: z.number().nullable(),
  checkedAt: z.string().nullable(),
  checkError: z.string().nullable(),
  rsaKeySet: z.boolean(),
  rsaKeyType: z.string().nullable(),
  rsaKeyFingerprint: z.string().nullable(),
  hostKeyFingerprint: z.string().nullable(),
});
export type Server = z.infer<typeof ServerSchema>;

const panelUser = () =>
  optionalText(200).refine((v) => v == null || isUserSafe(v), { message: CREDENTIAL_MESSAGES.user });

export const ServerInputSchema = z.object({
  IPAddress: z
    .string({ message: 'IP Address is required' })
    .trim()
    .min(1, 'IP Address is required')
    .pipe(IpAddressSchema),
  email: z.preprocess(
    emptyToNull,
    z
      .string()
      .trim()
      .max(320)
      .pipe(z.email({ message: 'Email must be a valid email address' }))
      .nullable()
      .optional(),
  ),
  domainsLimitQty: z.preprocess(
    (v) => (v === '' || v === null || v === undefined ? undefined : typeof v === 'string' ? Number(v) : v),
    z
      .number({ message: 'Max Domains must be a whole number, 0 or more' })
      .int({ message: 'Max Domains must be a whole number, 0 or more' })
      .min(0, 'Max Domains must be a whole number, 0 or more')
      .max(1_000_000)
      .default(0),
  ),
  username: z.preprocess(emptyToNull, z.string().trim().max(200).nullable().optional()),
  sshPort: portInput('SSH port').nullable().optional(),
  domainsPath: z.preprocess(
    emptyToNull,
    z
      .string()
      .trim()
      .max(1000)
      .regex(/^\/[^\0]*$/, 'Domains path must be an absolute path, such as /www')
      .nullable()
      .optional(),
  ),
  ispmanagerUri: optionalUrl('ISP Manager URI'),
  // Panel credentials go in a URL (ISPmanager) or a Basic auth header (DirectAdmin).
  ispmanagerUsername: panelUser(),
  ispmanagerPassword: secretPassword(),
  ispmanagerAcceptSelfSigned: z.boolean().optional(),
  directAdminUri: optionalUrl('Direct Admin URI'),
  directAdminUsername: panelUser(),
  directAdminPassword: secretPassword(),
});
export type ServerInput = z.infer<typeof ServerInputSchema>;

export const SERVER_SECRET_FIELDS = ['ispmanagerPassword', 'directAdminPassword'] as const;

export const RsaKeyInputSchema = z.object({
  rsaKey: z.string({ message: 'RSA Key is required' }).trim().min(1, 'RSA Key is required').max(20_000),
});
export const GenerateKeyInputSchema = z.object({ kind: z.enum(['ed25519', 'rsa4096']).default('ed25519') });
export const RsaKeyInfoSchema = z.object({
  rsaKeySet: z.boolean(),
  rsaKeyType: z.string().nullable(),
  rsaKeyFingerprint: z.string().nullable(),
  publicKey: z.string().nullable(),
});
export type RsaKeyInfo = z.infer<typeof RsaKeyInfoSchema>;

export const TestConnectionResultSchema = z.object({
  message: z.string(),
  status: z.enum(SERVER_STATUSES),
  freeSpace: z.number().nullable(),
  totalSpace: z.number().nullable(),
  hostKeyFingerprint: z.string().nullable(),
  checkedAt: z.string(),
});
export type TestConnectionResult = z.infer<typeof TestConnectionResultSchema>;
