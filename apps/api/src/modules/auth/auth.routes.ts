import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LoginInputSchema, MeSchema, SessionUserSchema, dataOf } from '@fleetdesk/contract';
import type { AuthService } from './auth.service.ts';
import { deviceTokenOf, setDeviceCookie } from './device-cookie.ts';

export const authRoutes =
  (auth: AuthService, info: { demo: boolean }): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/auth/login',
      {
        config: { access: 'public' },
        schema: {
          tags: ['auth'],
          body: LoginInputSchema,
          response: { 200: dataOf(z.object({ user: SessionUserSchema })) },
        },
      },
      async (req, reply) => {
        const { token, user, device } = await auth.login(req.body, {
          ip: req.ip,
          userAgent: req.headers['user-agent'],
          requestId: String(req.id),
          device: deviceTokenOf(req),
        });
        reply.header('authorization', `Bearer ${token}`);
        setDeviceCookie(req, reply, device);
        return { data: { user } };
      },
    );

    app.post(
      '/auth/logout',
      {
        config: { access: 'authenticated' },
        schema: { tags: ['auth'], response: { 200: dataOf(z.object({ ok: z.boolean() })) } },
      },
      async (req) => {
        await auth.logout(req.sessionId!, req.actor);
        return { data: { ok: true } };
      },
    );

    app.get(
      '/auth/me',
      { config: { access: 'authenticated' }, schema: { tags: ['auth'], response: { 200: dataOf(MeSchema) } } },
      async (req) => ({ data: await auth.me(req.actor) }),
    );

    app.get(
      '/auth/info',
      {
        config: { access: 'public' },
        schema: { tags: ['auth'], response: { 200: dataOf(z.object({ demo: z.boolean() })) } },
      },
      async () => ({ data: { demo: info.demo } }),
    );
  };
