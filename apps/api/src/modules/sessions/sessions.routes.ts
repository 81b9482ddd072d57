import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParamsSchema, SessionListQuerySchema, SessionSchema, dataOf, listOf } from '@fleetdesk/contract';
import type { SessionsService } from './sessions.service.ts';

const ok = dataOf(z.object({ ok: z.boolean() }));

/** One's own sessions under /auth; everyone's under /api/sessions with cnv:users. */
export const sessionsRoutes =
  (service: SessionsService): FastifyPluginAsyncZod =>
  async (app) => {
    const tags = ['sessions'];
    app.get(
      '/auth/sessions',
      { config: { access: 'authenticated' }, schema: { tags, response: { 200: dataOf(z.array(SessionSchema)) } } },
      async (req) => ({ data: await service.listOwn(req.actor, req.sessionId) }),
    );
    app.delete(
      '/auth/sessions/:id',
      { config: { access: 'authenticated' }, schema: { tags, params: IdParamsSchema, response: { 200: ok } } },
      async (req) => {
        await service.endOwn(req.params.id, req.actor);
        return { data: { ok: true } };
      },
    );
    app.get(
      '/api/sessions',
      {
        config: { access: 'cnv:users' },
        schema: { tags, querystring: SessionListQuerySchema, response: { 200: listOf(SessionSchema) } },
      },
      async (req) => ({ data: await service.list(req.query, req.sessionId, req.actor) }),
    );
    app.delete(
      '/api/sessions/:id',
      { config: { access: 'cnv:users' }, schema: { tags, params: IdParamsSchema, response: { 200: ok } } },
      async (req) => {
        await service.end(req.params.id, req.actor);
        return { data: { ok: true } };
      },
    );
  };
