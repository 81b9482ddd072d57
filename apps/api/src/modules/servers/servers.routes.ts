import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  GenerateKeyInputSchema,
  IdParamsSchema,
  RsaKeyInfoSchema,
  RsaKeyInputSchema,
  ServerInputSchema,
  ServerListQuerySchema,
  ServerSchema,
  TestConnectionResultSchema,
  dataOf,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import { mountReveal } from '../../lib/secrets.ts';
import type { ServersService } from './servers.service.ts';

export const serversRoutes = (service: ServersService) => async (app: FastifyInstance) => {
  const path = '/api/servers';
  const config = { access: 'cnv:servers' as const };
  const tags = ['servers'];
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
  mountCrud(app, {
    path,
    rule: 'cnv:servers',
    entity: ServerSchema,
    input: ServerInputSchema,
    listQuery: ServerListQuerySchema,
    service,
  });
  mountReveal(app, { path, rule: 'cnv:servers', reveal: service.reveal });

  app.get(
    `${path}/:id/rsa-key`,
    { config, schema: { tags, params: IdParamsSchema, response: { 200: dataOf(RsaKeyInfoSchema) } } },
    async (req) => ({
      data: await service.getKey(idOf(req)),
    }),
  );
  app.post(
    `${path}/:id/rsa-key`,
    {
      config,
      schema: { tags, params: IdParamsSchema, body: RsaKeyInputSchema, response: { 200: dataOf(RsaKeyInfoSchema) } },
    },
    async (req) => ({ data: await service.saveKey(idOf(req), (req.body as { rsaKey: string }).rsaKey, req.actor) }),
  );
  app.delete(
    `${path}/:id/rsa-key`,
    { config, schema: { tags, params: IdParamsSchema, response: { 200: dataOf(z.object({ ok: z.boolean() })) } } },
    async (req) => {
      await service.deleteKey(idOf(req), req.actor);
      return { data: { ok: true } };
    },
  );
  app.post(
    `${path}/:id/rsa-key/generate`,
    {
      config,
      schema: {
        tags,
        params: IdParamsSchema,
        body: GenerateKeyInputSchema.optional(),
        response: { 200: dataOf(RsaKeyInfoSchema) },
      },
    },
    async (req) => ({
      data: await service.generateKey(
        idOf(req),
        (req.body as { kind?: 'ed25519' | 'rsa4096' } | undefined)?.kind ?? 'ed25519',
        req.actor,
      ),
    }),
  );
  app.post(
    `${path}/:id/test-connection`,
    { config, schema: { tags, params: IdParamsSchema, response: { 200: dataOf(TestConnectionResultSchema) } } },
    async (req) => ({ data: await service.testConnection(idOf(req), req.actor) }),
  );
  app.delete(
    `${path}/:id/host-key`,
    { config, schema: { tags, params: IdParamsSchema, response: { 200: dataOf(ServerSchema) } } },
    async (req) => ({ data: await service.clearHostKey(idOf(req), req.actor) }),
  );
};
