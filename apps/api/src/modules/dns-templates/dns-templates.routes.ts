import type { FastifyInstance } from 'fastify';
import {
  DnsTemplateInputSchema,
  DnsTemplateListQuerySchema,
  DnsTemplateSchema,
  DnsTemplateUpdateInputSchema,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { DnsTemplatesService } from './dns-templates.service.ts';

export const dnsTemplatesRoutes = (service: DnsTemplatesService) => async (app: FastifyInstance) => {
  mountCrud(app, {
    path: '/api/dns-templates',
    rule: 'cnv:domains',
    entity: DnsTemplateSchema,
    input: DnsTemplateInputSchema,
    updateInput: DnsTemplateUpdateInputSchema,
    listQuery: DnsTemplateListQuerySchema,
    service,
  });
};
