import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RULES, DashboardSchema, dataOf } from '@fleetdesk/contract';
import type { DashboardService } from './dashboard.service.ts';

/** Any area rule opens it (a user with no rules has nothing to see); each figure is there only when the caller's rules open its area. */
export const dashboardRoutes =
  (service: DashboardService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/dashboard',
      {
        config: { access: RULES },
        schema: { tags: ['dashboard'], response: { 200: dataOf(DashboardSchema) } },
      },
      async (req) => ({ data: await service.get(req.actor) }),
    );
  };
