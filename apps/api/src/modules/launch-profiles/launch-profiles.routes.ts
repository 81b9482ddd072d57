import type { FastifyInstance } from 'fastify';
import {
  LaunchProfileInputSchema,
  LaunchProfileListQuerySchema,
  LaunchProfileSchema,
  LaunchProfileUpdateInputSchema,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { LaunchProfilesService } from './launch-profiles.service.ts';

export const launchProfilesRoutes = (service: LaunchProfilesService) => async (app: FastifyInstance) => {
  mountCrud(app, {
    path: '/api/launch-profiles',
    rule: 'cnv:domains',
    entity: LaunchProfileSchema,
    input: LaunchProfileInputSchema,
    updateInput: LaunchProfileUpdateInputSchema,
    listQuery: LaunchProfileListQuerySchema,
    service,
  });
};
