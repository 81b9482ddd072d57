import type { FastifyInstance } from 'fastify';
import { RegionInputSchema, RegionSchema } from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { RegionsService } from './regions.service.ts';

export const regionsRoutes = (service: RegionsService) => async (app: FastifyInstance) => {
  mountCrud(app, {
    path: '/api/regions',
    rule: 'cnv:regions',
    entity: RegionSchema,
    input: RegionInputSchema,
    service,
  });
};
