import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LoginResultSchema, OidcConfigSchema, OidcExchangeInputSchema, dataOf } from '@fleetdesk/contract';
import type { OidcService } from './oidc.service.ts';

const meta = (req: { ip: string; id: unknown; headers: { 'user-agent'?: string } }) => ({
  ip: req.ip,
  userAgent: req.headers['user-agent'],
  requestId: String(req.id),
});

export const oidcRoutes =
  (oidc: OidcService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/auth/oidc/config',
      {
        config: { access: 'public' },
        schema: { tags: ['auth'], response: { 200: dataOf(OidcConfigSchema) } },
      },
      async () => ({ data: oidc.publicConfig() }),
    );

    app.get('/auth/oidc/start', { config: { access: 'public' }, schema: { tags: ['auth'] } }, async (_req, reply) =>
      reply.redirect(await oidc.start(), 302),
    );

    app.get(
      '/auth/oidc/callback',
      {
        config: { access: 'public' },
        schema: {
          tags: ['auth'],
          querystring: z
            .object({
              code: z.string().max(4096).optional(),
              state: z.string().max(4096).optional(),
              iss: z.string().max(2048).optional(),
              error: z.string().max(2048).optional(),
              error_description: z.string().max(4096).optional(),
              session_state: z.string().max(4096).optional(),
            })
            .strip(),
        },
      },
      async (req, reply) => reply.redirect(await oidc.callback(req.query, meta(req)), 302),
    );

    app.post(
      '/auth/oidc/exchange',
      {
        config: { access: 'public' },
        schema: { tags: ['auth'], body: OidcExchangeInputSchema, response: { 200: dataOf(LoginResultSchema) } },
      },
      async (req, reply) => {
        const { token, result } = await oidc.exchange(req.body.code, meta(req));
        reply.header('authorization', `Bearer ${token}`);
        return { data: result };
      },
    );
  };
