import { z } from 'zod';
import {
  CREDENTIAL_MESSAGES,
  IdSchema,
  ListQuerySchema,
  hasNoUrlCredentials,
  isUserSafe,
  requiredText,
  secretOutput,
  secretToken,
  urlCredentialsMessage,
} from './common.ts';

export const REGISTRATOR_TYPES = ['namecheap'] as const;
export type RegistratorType = (typeof REGISTRATOR_TYPES)[number];

/** The addresses offered by the endpoint select (see shared/docs/integrations/namecheap.md §1). */
export const NAMECHEAP_ENDPOINTS = [
  { label: 'Namecheap sandbox', value: 'https://api.sandbox.namecheap.com/xml.response' },
  { label: 'Namecheap production', value: 'https://api.namecheap.com/xml.response' },
] as const;

export const ENDPOINT_URL_MESSAGE = 'Endpoint URL must be an http or https URL';

export const isHttpUrl = (v: string) => {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
  } catch {
    return false;
  }
};

const endpointUrl = () =>
  requiredText(500, 'Endpoint URL')
    .refine(isHttpUrl, { message: ENDPOINT_URL_MESSAGE })
    .refine(hasNoUrlCredentials, { message: urlCredentialsMessage('Endpoint URL') });
// ApiUser and ApiKey go in the URL of every Namecheap call.
const apiUsername = () => requiredText(100, 'API username').refine(isUserSafe, { message: CREDENTIAL_MESSAGES.user });
const registratorType = () =>
  z.enum(REGISTRATOR_TYPES, {
    error: (iss) => (iss.input === undefined ? 'Type is required' : `Type must be ${REGISTRATOR_TYPES.join(' or ')}`),
  });

export const DomainRegistratorSchema = z.object({
  _id: IdSchema,
  domainRegistratorNo: z.number().int(),
  name: z.string(),
  type: z.enum(REGISTRATOR_TYPES),
  credentials: z.object({
    endpointUrl: z.string(),
    apiUsername: z.string(),
    apiKey: secretOutput(),
  }),
});
export type DomainRegistrator = z.infer<typeof DomainRegistratorSchema>;

export const DomainRegistratorInputSchema = z.object({
  name: requiredText(200, 'Name'),
  type: registratorType(),
  credentials: z.object(
    { endpointUrl: endpointUrl(), apiUsername: apiUsername(), apiKey: secretToken(200) },
    { message: 'Credentials are required' },
  ),
});
export type DomainRegistratorInput = z.infer<typeof DomainRegistratorInputSchema>;

/**
 * Partial. The type can be set only on create: sending a different one is refused. Credentials left out
 * (the form's "Update credentials" unticked) keep the stored ones, and so does the masked API key.
 */
export const DomainRegistratorUpdateInputSchema = z.object({
  name: requiredText(200, 'Name').optional(),
  type: registratorType().optional(),
  credentials: z
    .object({ endpointUrl: endpointUrl().optional(), apiUsername: apiUsername().optional(), apiKey: secretToken(200) })
    .optional(),
});
export type DomainRegistratorUpdateInput = z.infer<typeof DomainRegistratorUpdateInputSchema>;

export const DomainRegistratorListQuerySchema = ListQuerySchema;
