import type { FastifyInstance } from 'fastify';
import { UserInputSchema, UserListQuerySchema, UserSchema, UserUpdateInputSchema } from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { UsersService } from './users.service.ts';

export const usersRoutes = (service: UsersService) => async (app: FastifyInstance) => {
  mountCrud(app, {
    path: '/api/users',
    rule: 'cnv:users',
    entity: UserSchema,
    input: UserInputSchema,
    updateInput: UserUpdateInputSchema,
    listQuery: UserListQuerySchema,
    service,
  });
};
