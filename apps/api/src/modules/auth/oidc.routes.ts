import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  IdParamsSchema,
  IdentityLinkInputSchema,
  IdentityLinkSchema,
  IdentityParamsSchema,
  LoginResultSchema,
  OidcConfigSchema,
  OidcExchangeInputSchema,
  UserIdentitiesSchema,
  UserIdentitySchema,
  dataOf,
} from '@fleetdesk/contract';
import { OIDC_EXCHANGE_COOKIE, OIDC_STATE_COOKIE, oidcCookieOf, setOidcCookie } from './oidc-cookie.ts';
import { EXCHANGE_MS, LOGIN_MS, type OidcService } from './oidc.service.ts';

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

    app.get(
      '/auth/oidc/start',
      {
        config: { access: 'public' },
        // `link`: an administrator's link invitation (the next sign-in links the account to its user).
        schema: { tags: ['auth'], querystring: z.object({ link: z.string().max(200).optional() }).strip() },
      },
      async (req, reply) => {
        const { location, stateHash } = await oidc.start(req.query.link);
        // The browser that starts is the one the callback answers (login CSRF, oidc-cookie.ts).
        if (stateHash) setOidcCookie(reply, OIDC_STATE_COOKIE, stateHash, LOGIN_MS / 1000, oidc.secureCookies);
        return reply.redirect(location, 302);
      },
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
      async (req, reply) => {
        const bound = oidcCookieOf(req, OIDC_STATE_COOKIE);
        const { location, exchangeHash } = await oidc.callback(req.query, meta(req), bound);
        // A state works once: its cookie goes with it (a callback from elsewhere leaves this browser's alone).
        if (bound && exchangeHash) setOidcCookie(reply, OIDC_STATE_COOKIE, '', 0, oidc.secureCookies);
        if (exchangeHash) {
          setOidcCookie(reply, OIDC_EXCHANGE_COOKIE, exchangeHash, EXCHANGE_MS / 1000, oidc.secureCookies);
        }
        return reply.redirect(location, 302);
      },
    );

    app.post(
      '/auth/oidc/exchange',
      {
        config: { access: 'public' },
        schema: { tags: ['auth'], body: OidcExchangeInputSchema, response: { 200: dataOf(LoginResultSchema) } },
      },
      async (req, reply) => {
        const { token, result } = await oidc.exchange(
          req.body.code,
          meta(req),
          oidcCookieOf(req, OIDC_EXCHANGE_COOKIE),
        );
        // No token when the console's code step follows (a challenge is answered instead).
        if (token) reply.header('authorization', `Bearer ${token}`);
        return { data: result };
      },
    );

    // An administrator links a user's single sign-on: by an invitation, or by the provider's subject.
    const ok = dataOf(z.object({ ok: z.boolean() }));
    app.get(
      '/api/users/:id/identities',
      {
        config: { access: 'cnv:users' },
        schema: { tags: ['users'], params: IdParamsSchema, response: { 200: dataOf(UserIdentitiesSchema) } },
      },
      async (req) => ({ data: await oidc.identities(req.params.id) }),
    );
    app.post(
      '/api/users/:id/identities',
      {
        config: { access: 'cnv:users' },
        schema: {
          tags: ['users'],
          params: IdParamsSchema,
          body: IdentityLinkInputSchema,
          response: { 201: dataOf(UserIdentitySchema) },
        },
      },
      async (req, reply) => {
        reply.code(201);
        return { data: await oidc.linkSubject(req.params.id, req.body.subject, req.actor) };
      },
    );
    app.delete(
      '/api/users/:id/identities/:identityId',
      {
        config: { access: 'cnv:users' },
        schema: { tags: ['users'], params: IdentityParamsSchema, response: { 200: ok } },
      },
      async (req) => {
        await oidc.unlink(req.params.id, req.params.identityId, req.actor);
        return { data: { ok: true } };
      },
    );
    app.post(
      '/api/users/:id/identity-link',
      {
        config: { access: 'cnv:users' },
        schema: { tags: ['users'], params: IdParamsSchema, response: { 201: dataOf(IdentityLinkSchema) } },
      },
      async (req, reply) => {
        reply.code(201);
        return { data: await oidc.createLink(req.params.id, req.actor) };
      },
    );
    app.delete(
      '/api/users/:id/identity-link',
      {
        config: { access: 'cnv:users' },
        schema: { tags: ['users'], params: IdParamsSchema, response: { 200: ok } },
      },
      async (req) => {
        await oidc.cancelLink(req.params.id, req.actor);
        return { data: { ok: true } };
      },
    );
  };
