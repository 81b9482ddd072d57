import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  DomainTrafficSchema,
  IdParamsSchema,
  TrafficQuerySchema,
  dataOf,
  type TrafficQuery,
} from '@fleetdesk/contract';
import type { TrafficService } from './traffic.service.ts';

/** A domain's traffic (Cloudflare analytics, kept): GET answers the kept days, POST …/refresh reads them now. */
export const trafficRoutes =
  (service: TrafficService): FastifyPluginAsyncZod =>
  async (app) => {
    const config = { access: 'cnv:domains' as const };
    const tags = ['traffic'];
    const one = dataOf(DomainTrafficSchema);
    const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
    app.get(
      '/api/domains/:id/traffic',
      { config, schema: { tags, params: IdParamsSchema, querystring: TrafficQuerySchema, response: { 200: one } } },
      async (req) => ({ data: await service.get(idOf(req), (req.query as TrafficQuery).range, req.actor) }),
    );
    app.post(
      '/api/domains/:id/traffic/refresh',
      { config, schema: { tags, params: IdParamsSchema, querystring: TrafficQuerySchema, response: { 200: one } } },
      async (req) => ({ data: await service.refreshNow(idOf(req), (req.query as TrafficQuery).range, req.actor) }),
    );
  };
