import type { FastifyInstance } from 'fastify';
import { RoleInputSchema, RoleListQuerySchema, RoleSchema, RoleUpdateInputSchema } from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { RolesService } from './roles.service.ts';

export const rolesRoutes = (service: RolesService) => async (app: FastifyInstance) => {
  mountCrud(app, {
    path: '/api/roles',
    rule: 'cnv:roles',
    entity: RoleSchema,
    input: RoleInputSchema,
    updateInput: RoleUpdateInputSchema,
    listQuery: RoleListQuerySchema,
    service,
  });
};
