import type { DomainRegistratorContact, DomainRegistratorContactInput, ListQuery } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { ContactWrite, DomainRegistratorsContactsRepository } from './domain-registrators-contacts.repository.ts';

export function createDomainRegistratorsContactsService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  repo: DomainRegistratorsContactsRepository;
}) {
  const crud = createCrudService<DomainRegistratorContact, DomainRegistratorContactInput, ListQuery, ContactWrite>({
    ...deps,
    entity: 'domain-registrators-contacts',
    label: 'contact',
    snapshot: async (id, ex) => {
      const c = await deps.repo.findById(id, ex);
      if (!c) return undefined;
      const { _id: _, domainRegistratorContactNo: __, ...fields } = c;
      return fields;
    },
  });
  return { ...crud, findByIds: deps.repo.findByIds };
}
export type DomainRegistratorsContactsService = ReturnType<typeof createDomainRegistratorsContactsService>;
