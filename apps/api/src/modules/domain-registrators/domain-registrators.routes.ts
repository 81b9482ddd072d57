import type { FastifyInstance } from 'fastify';
import {
  DomainRegistratorInputSchema,
  DomainRegistratorListQuerySchema,
  DomainRegistratorSchema,
  DomainRegistratorUpdateInputSchema,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import { mountReveal } from '../../lib/secrets.ts';
import type { DomainRegistratorsService } from './domain-registrators.service.ts';

export const domainRegistratorsRoutes = (service: DomainRegistratorsService) => async (app: FastifyInstance) => {
  const path = '/api/domain-registrators';
  mountCrud(app, {
    path,
    rule: 'cnv:domainRegistrators',
    entity: DomainRegistratorSchema,
    input: DomainRegistratorInputSchema,
    updateInput: DomainRegistratorUpdateInputSchema,
    listQuery: DomainRegistratorListQuerySchema,
    service,
  });
  mountReveal(app, { path, rule: 'cnv:domainRegistrators', reveal: service.reveal });
};
