import type { DomainRegistratorContact, DomainRegistratorContactInput } from '@fleetdesk/contract';
import { SECOND_DOCUMENT, createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const contactsApi = createResourceHooks<DomainRegistratorContact, DomainRegistratorContactInput>(
  'domain-registrators-contacts',
  SECOND_DOCUMENT,
);

/** Contacts are listed on the registrators' Contacts tab, so "the list" is that tab. */
export const CONTACTS_TAB = '/domain-registrators?tab=contacts';
export const contactPaths = { ...resourcePaths('domain-registrators-contacts'), list: CONTACTS_TAB };

export type ContactFormValues = {
  name: string;
  firstName: string;
  lastName: string;
  address1: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
  phone: string;
  email: string;
};
