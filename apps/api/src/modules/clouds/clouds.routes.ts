import type { FastifyInstance } from 'fastify';
import { CloudInputSchema, CloudListQuerySchema, CloudSchema } from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import { mountReveal } from '../../lib/secrets.ts';
import type { CloudsService } from './clouds.service.ts';

export const cloudsRoutes = (service: CloudsService) => async (app: FastifyInstance) => {
  const path = '/api/clouds';
  mountCrud(app, {
    path,
    rule: 'cnv:clouds',
    entity: CloudSchema,
    input: CloudInputSchema,
    listQuery: CloudListQuerySchema,
    service,
  });
  mountReveal(app, { path, rule: 'cnv:clouds', reveal: service.reveal });
};
