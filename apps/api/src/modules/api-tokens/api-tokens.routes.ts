import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ApiTokenCreatedSchema,
  ApiTokenInputSchema,
  ApiTokenOptionsSchema,
  ApiTokenSchema,
  IdParamsSchema,
  UserTokenParamsSchema,
  dataOf,
} from '@fleetdesk/contract';
import type { ApiTokensService } from './api-tokens.service.ts';

/** One's own personal API tokens (under /auth: any signed-in person; never a token, see token-limits.ts). */
export const apiTokensRoutes =
  (service: ApiTokensService): FastifyPluginAsyncZod =>
  async (app) => {
    const config = { access: 'authenticated' } as const;
    const tags = ['api-tokens'];
    app.get(
      '/auth/tokens',
      { config, schema: { tags, response: { 200: dataOf(z.array(ApiTokenSchema)) } } },
      async (req) => ({ data: await service.list(req.actor) }),
    );
    app.get(
      '/auth/tokens/options',
      { config, schema: { tags, response: { 200: dataOf(ApiTokenOptionsSchema) } } },
      async (req) => ({ data: await service.options(req.actor) }),
    );
    app.post(
      '/auth/tokens',
      { config, schema: { tags, body: ApiTokenInputSchema, response: { 200: dataOf(ApiTokenCreatedSchema) } } },
      async (req) => ({ data: await service.create(req.body, req.actor) }),
    );
    app.delete(
      '/auth/tokens/:id',
      { config, schema: { tags, params: IdParamsSchema, response: { 200: dataOf(z.object({ ok: z.boolean() })) } } },
      async (req) => {
        await service.revoke(req.params.id, req.actor);
        return { data: { ok: true } };
      },
    );

    // An administrator's list and revoke of a user's tokens (cnv:users and every rule of the user; never a token).
    const admin = { access: 'cnv:users' } as const;
    app.get(
      '/api/users/:id/tokens',
      {
        config: admin,
        schema: { tags: ['users'], params: IdParamsSchema, response: { 200: dataOf(z.array(ApiTokenSchema)) } },
      },
      async (req) => ({ data: await service.listOf(req.params.id, req.actor) }),
    );
    app.delete(
      '/api/users/:id/tokens/:tokenId',
      {
        config: admin,
        schema: {
          tags: ['users'],
          params: UserTokenParamsSchema,
          response: { 200: dataOf(z.object({ ok: z.boolean() })) },
        },
      },
      async (req) => {
        await service.revokeOf(req.params.id, req.params.tokenId, req.actor);
        return { data: { ok: true } };
      },
    );
  };
