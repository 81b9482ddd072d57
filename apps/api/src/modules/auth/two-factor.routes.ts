import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  IdParamsSchema,
  LoginResultSchema,
  LoginTwoFactorInputSchema,
  RecoveryCodesSchema,
  TwoFactorConfirmInputSchema,
  TwoFactorEnableInputSchema,
  TwoFactorSetupSchema,
  TwoFactorStatusSchema,
  UserTwoFactorSchema,
  dataOf,
} from '@fleetdesk/contract';
import type { TwoFactorService } from './two-factor.service.ts';

const ok = dataOf(z.object({ ok: z.boolean() }));

/** The code step of a sign-in, one's own two-factor (profile), and an administrator's reset. */
export const twoFactorRoutes =
  (twoFactor: TwoFactorService): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/auth/login/two-factor',
      {
        config: { access: 'public' },
        schema: { tags: ['auth'], body: LoginTwoFactorInputSchema, response: { 200: dataOf(LoginResultSchema) } },
      },
      async (req, reply) => {
        const { token, result } = await twoFactor.completeLogin(req.body, {
          ip: req.ip,
          userAgent: req.headers['user-agent'],
          requestId: String(req.id),
        });
        if (token) reply.header('authorization', `Bearer ${token}`);
        return { data: result };
      },
    );

    const own = { access: 'authenticated', duringTwoFactorSetup: true } as const;
    app.get(
      '/auth/two-factor',
      { config: own, schema: { tags: ['auth'], response: { 200: dataOf(TwoFactorStatusSchema) } } },
      async (req) => ({ data: await twoFactor.status(req.actor) }),
    );
    app.post(
      '/auth/two-factor/setup',
      { config: own, schema: { tags: ['auth'], response: { 200: dataOf(TwoFactorSetupSchema) } } },
      async (req) => ({ data: await twoFactor.beginSetup(req.actor) }),
    );
    app.post(
      '/auth/two-factor/enable',
      {
        config: own,
        schema: { tags: ['auth'], body: TwoFactorEnableInputSchema, response: { 200: dataOf(RecoveryCodesSchema) } },
      },
      async (req) => ({ data: await twoFactor.enable(req.actor, req.body.code) }),
    );
    app.post(
      '/auth/two-factor/disable',
      {
        config: { access: 'authenticated' },
        schema: { tags: ['auth'], body: TwoFactorConfirmInputSchema, response: { 200: ok } },
      },
      async (req) => {
        await twoFactor.disable(req.actor, req.body, req.ip);
        return { data: { ok: true } };
      },
    );
    app.post(
      '/auth/two-factor/recovery-codes',
      {
        config: { access: 'authenticated' },
        schema: { tags: ['auth'], body: TwoFactorConfirmInputSchema, response: { 200: dataOf(RecoveryCodesSchema) } },
      },
      async (req) => ({ data: await twoFactor.renewRecoveryCodes(req.actor, req.body, req.ip) }),
    );

    app.get(
      '/api/users/:id/two-factor',
      {
        config: { access: 'cnv:users' },
        schema: { tags: ['users'], params: IdParamsSchema, response: { 200: dataOf(UserTwoFactorSchema) } },
      },
      async (req) => ({ data: await twoFactor.userStatus(req.params.id) }),
    );
    app.post(
      '/api/users/:id/two-factor/reset',
      {
        config: { access: 'cnv:users' },
        schema: { tags: ['users'], params: IdParamsSchema, response: { 200: ok } },
      },
      async (req) => {
        await twoFactor.reset(req.params.id, req.actor);
        return { data: { ok: true } };
      },
    );
  };
