import type { FastifyInstance } from 'fastify';
import {
  DomainRegistratorContactInputSchema,
  DomainRegistratorContactListQuerySchema,
  DomainRegistratorContactSchema,
  DomainRegistratorContactUpdateInputSchema,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { DomainRegistratorsContactsService } from './domain-registrators-contacts.service.ts';

export const domainRegistratorsContactsRoutes =
  (service: DomainRegistratorsContactsService) => async (app: FastifyInstance) => {
    mountCrud(app, {
      path: '/api/domain-registrators-contacts',
      rule: 'cnv:domainRegistrators',
      entity: DomainRegistratorContactSchema,
      input: DomainRegistratorContactInputSchema,
      updateInput: DomainRegistratorContactUpdateInputSchema,
      listQuery: DomainRegistratorContactListQuerySchema,
      service,
    });
  };
