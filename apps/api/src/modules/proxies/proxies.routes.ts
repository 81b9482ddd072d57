import type { FastifyInstance } from 'fastify';
import {
  IdParamsSchema,
  ProxyCheckResultSchema,
  ProxyInputSchema,
  ProxyListQuerySchema,
  ProxySchema,
  dataOf,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import { mountReveal } from '../../lib/secrets.ts';
import type { ProxiesService } from './proxies.service.ts';

export const proxiesRoutes = (service: ProxiesService) => async (app: FastifyInstance) => {
  const path = '/api/proxies';
  mountCrud(app, {
    path,
    rule: 'cnv:proxies',
    entity: ProxySchema,
    input: ProxyInputSchema,
    listQuery: ProxyListQuerySchema,
    service,
  });
  mountReveal(app, { path, rule: 'cnv:proxies', reveal: service.reveal });
  app.post(
    `${path}/:id/check`,
    {
      config: { access: 'cnv:proxies' },
      schema: { tags: ['proxies'], params: IdParamsSchema, response: { 200: dataOf(ProxyCheckResultSchema) } },
    },
    async (req) => ({ data: await service.check((req.params as { id: string }).id, req.actor) }),
  );
};
