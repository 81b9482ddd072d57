import type { FastifyInstance } from 'fastify';
import { BrandInputSchema, BrandListQuerySchema, BrandSchema } from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { BrandsService } from './brands.service.ts';

export const brandsRoutes = (service: BrandsService) => async (app: FastifyInstance) => {
  mountCrud(app, {
    path: '/api/brands',
    rule: 'cnv:brands',
    entity: BrandSchema,
    input: BrandInputSchema,
    listQuery: BrandListQuerySchema,
    service,
  });
};
