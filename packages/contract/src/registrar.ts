import { z } from 'zod';
import { IdSchema, ListQuerySchema } from './common.ts';

/** Spec 2 §5 and §8: the registrator tab's and the register page's warnings. */
export const REGISTRAR_TEXT = {
  noDomainName: 'Domain Name is not set',
  noRegistrator: 'Domain registrator is not selected',
  chooseRegistrator: 'choose a registrator in the Domain Registrator tab',
  noZone: 'The domain has no Cloudflare zone: create or link one first',
  noContact: 'The contact does not exist',
  contactRequired: 'Contact is required',
  contactIncomplete: (missing: string[]) => `The contact is missing what Namecheap requires: ${missing.join(', ')}`,
  importNone: 'Select at least one domain',
  notInAccount: 'Not in the registrar account',
  alreadyInConsole: 'Already in the console',
} as const;

/** GET /api/domain-registrators/{id}/domain-info?domainName= */
export const DomainInfoQuerySchema = z.object({
  domainName: z
    .string({ message: 'Domain name is required' })
    .trim()
    .min(1, { message: 'Domain name is required' })
    .max(253, { message: 'Domain name must be at most 253 characters' }),
});

/** Spec 2 "Registrator domain info": success, message, data.status, data.expirationDate (YYYY-MM-DD). */
export const RegistratorDomainInfoSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  data: z.object({ status: z.string().nullable(), expirationDate: z.string().nullable() }),
});
export type RegistratorDomainInfo = z.infer<typeof RegistratorDomainInfoSchema>;

export const RegistratorDomainsQuerySchema = ListQuerySchema;

/** One domain of the registrar account, marked with the console's domain of the same name when there is one. */
export const RegistratorDomainSchema = z.object({
  domainName: z.string(),
  domainNameUnicode: z.string(),
  expirationDate: z.string().nullable(),
  isExpired: z.boolean(),
  isLocked: z.boolean(),
  autoRenew: z.boolean(),
  existsInConsole: z.boolean(),
  domainId: IdSchema.nullable(),
});
export type RegistratorDomain = z.infer<typeof RegistratorDomainSchema>;

export const IMPORT_MAX = 100;
export const RegistratorImportInputSchema = z.object({
  domainNames: z
    .array(z.string().trim().min(1).max(253), { message: REGISTRAR_TEXT.importNone })
    .min(1, { message: REGISTRAR_TEXT.importNone })
    .max(IMPORT_MAX, { message: `At most ${IMPORT_MAX} domains at once` }),
});
export type RegistratorImportInput = z.infer<typeof RegistratorImportInputSchema>;

export const RegistratorImportResultSchema = z.object({
  created: z.array(z.object({ _id: IdSchema, domainName: z.string(), expirationDate: z.string().nullable() })),
  skipped: z.array(z.object({ domainName: z.string(), reason: z.string() })),
});
export type RegistratorImportResult = z.infer<typeof RegistratorImportResultSchema>;

/** POST /api/domains/{id}/register */
export const RegisterDomainInputSchema = z.object({
  domainRegistratorContactId: IdSchema.or(z.undefined()).refine((v) => v !== undefined, {
    message: REGISTRAR_TEXT.contactRequired,
  }),
  years: z.coerce.number().int().min(1).max(10).optional().default(1),
});
export type RegisterDomainInput = z.input<typeof RegisterDomainInputSchema>;

export const RegisterDomainResultSchema = z.object({
  domainName: z.string(),
  registered: z.boolean(),
  chargedAmount: z.string(),
  orderId: z.number().nullable(),
  transactionId: z.number().nullable(),
  domainId: z.number().nullable(),
  nameServers: z.array(z.string()).nullable(),
  expirationDate: z.string().nullable(),
});
export type RegisterDomainResult = z.infer<typeof RegisterDomainResultSchema>;

/** The cloud action "Set name servers at registrar": the registrar's name servers before and after. */
export const RegistrarNameServersResultSchema = z.object({
  domainName: z.string(),
  before: z.array(z.string()),
  after: z.array(z.string()),
  updated: z.boolean(),
});
export type RegistrarNameServersResult = z.infer<typeof RegistrarNameServersResultSchema>;
