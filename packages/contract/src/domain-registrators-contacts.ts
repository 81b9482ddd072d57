import { z } from 'zod';
import { IdSchema, ListQuerySchema, optionalText, requiredText } from './common.ts';
import { COUNTRY_CODES } from './countries.ts';
import { EMAIL_MESSAGE } from './users.ts';

export const PHONE_PATTERN = /^\+\d{1,3}\.\d{4,14}$/;
export const PHONE_MESSAGE = 'Phone must look like +NNN.NNNNNNNNNN';
export const COUNTRY_MESSAGE = 'Country must be a two-letter ISO 3166-1 code';

const CODES = new Set<string>(COUNTRY_CODES);
const emptyToNull = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v);

const optionalEmail = () =>
  z.preprocess(
    emptyToNull,
    z
      .string()
      .trim()
      .max(254, { message: 'Email must be at most 254 characters' })
      .regex(z.regexes.email, { message: EMAIL_MESSAGE })
      .nullable()
      .optional(),
  );
const optionalPhone = () =>
  z.preprocess(emptyToNull, z.string().trim().regex(PHONE_PATTERN, { message: PHONE_MESSAGE }).nullable().optional());
const optionalCountry = () =>
  z.preprocess(
    (v) => (typeof v === 'string' ? ((emptyToNull(v) as string | null)?.trim().toUpperCase() ?? null) : v),
    z
      .string({ message: COUNTRY_MESSAGE })
      .refine((c) => CODES.has(c), { message: COUNTRY_MESSAGE })
      .nullable()
      .optional(),
  );

export const DomainRegistratorContactSchema = z.object({
  _id: IdSchema,
  domainRegistratorContactNo: z.number().int(),
  name: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  address1: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  postalCode: z.string().nullable(),
  country: z.string().nullable(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
});
export type DomainRegistratorContact = z.infer<typeof DomainRegistratorContactSchema>;

export const DomainRegistratorContactInputSchema = z.object({
  name: requiredText(200, 'Name'),
  firstName: optionalText(200),
  lastName: optionalText(200),
  address1: optionalText(500),
  city: optionalText(200),
  state: optionalText(200),
  postalCode: optionalText(50),
  country: optionalCountry(),
  phone: optionalPhone(),
  email: optionalEmail(),
});
export type DomainRegistratorContactInput = z.infer<typeof DomainRegistratorContactInputSchema>;

export const DomainRegistratorContactUpdateInputSchema = DomainRegistratorContactInputSchema.partial();
export type DomainRegistratorContactUpdateInput = z.infer<typeof DomainRegistratorContactUpdateInputSchema>;

export const DomainRegistratorContactListQuerySchema = ListQuerySchema;
