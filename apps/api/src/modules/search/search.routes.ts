import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RULES, SearchQuerySchema, SearchResultSchema, dataOf } from '@fleetdesk/contract';
import type { SearchService } from './search.service.ts';

/** Any area rule opens it; the service searches only the areas the caller's rules open. */
export const searchRoutes =
  (service: SearchService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/search',
      {
        config: { access: RULES },
        schema: { tags: ['search'], querystring: SearchQuerySchema, response: { 200: dataOf(SearchResultSchema) } },
      },
      async (req) => ({ data: await service.search(req.query.q, req.actor) }),
    );
  };
