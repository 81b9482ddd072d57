import type { FastifyInstance } from 'fastify';
import {
  ImportItemSchema,
  ImportItemsQuerySchema,
  ImportPlanInputSchema,
  ImportPlanSchema,
  type ImportPlanInput,
} from '@fleetdesk/contract';
import { mountPlanRoutes } from '../plans/plans.routes.ts';
import type { ImportsService } from './imports.service.ts';

/** Imports: plan one from a source, read the plan and its names, run, pause, resume, retry its failures, cancel. */
export const importsRoutes = (service: ImportsService) => async (app: FastifyInstance) => {
  mountPlanRoutes(app, {
    path: '/api/imports',
    tags: ['imports'],
    // Every import creates or changes domains: the domains area's rule.
    access: 'cnv:domains',
    plan: ImportPlanSchema,
    input: ImportPlanInputSchema,
    item: ImportItemSchema,
    itemsQuery: ImportItemsQuerySchema,
    create: (input, actor) => service.create(input as ImportPlanInput, actor),
    list: service.list,
    get: service.get,
    items: service.items,
    verbs: {
      run: service.run,
      pause: service.pause,
      resume: service.resume,
      'retry-failed': service.retryFailed,
      cancel: service.cancel,
    },
  });
};
