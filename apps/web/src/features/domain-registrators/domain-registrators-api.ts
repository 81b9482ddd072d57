import { z } from 'zod';
import {
  DomainRegistratorInputSchema,
  DomainRegistratorUpdateInputSchema,
  NAMECHEAP_ENDPOINTS,
  type DomainRegistrator,
  type DomainRegistratorContact,
  type DomainRegistratorInput,
  type RegistratorType,
} from '@fleetdesk/contract';
import { SECOND_DOCUMENT, createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const domainRegistratorsApi = createResourceHooks<DomainRegistrator, DomainRegistratorInput>(
  'domain-registrators',
  SECOND_DOCUMENT,
);
export const domainRegistratorPaths = resourcePaths('domain-registrators');

/** The Contacts tab lists the contacts; their form and delete pages are the contacts feature's. */
export const contactsListApi = createResourceHooks<DomainRegistratorContact>(
  'domain-registrators-contacts',
  SECOND_DOCUMENT,
);
export const contactPaths = resourcePaths('domain-registrators-contacts');

export type DomainRegistratorFormValues = {
  name: string;
  type: RegistratorType;
  /** Edit only: the credentials stay locked, and are not sent, until this is ticked. */
  updateCredentials: boolean;
  credentials: { endpointUrl: string; apiUsername: string; apiKey: string };
};

const withoutLock = (value: unknown) => {
  const { updateCredentials, ...rest } = value as DomainRegistratorFormValues;
  return updateCredentials ? rest : { ...rest, credentials: undefined };
};

/** Create: every field is sent. The masked key is dropped by the contract's secret input. */
export const CreateRegistratorSchema = z.preprocess(withoutLock, DomainRegistratorInputSchema);
/** Edit: credentials only when "Update credentials" is ticked. */
export const EditRegistratorSchema = z.preprocess(withoutLock, DomainRegistratorUpdateInputSchema);

export const endpointLabel = (url: string) => NAMECHEAP_ENDPOINTS.find((e) => e.value === url)?.label ?? url;
