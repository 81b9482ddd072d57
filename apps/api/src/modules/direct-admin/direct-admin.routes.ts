import type { FastifyInstance } from 'fastify';
import {
  DirectAdminCreateResultSchema,
  DirectAdminDeleteResultSchema,
  DirectAdminDomainInfoSchema,
  IdParamsSchema,
  dataOf,
} from '@fleetdesk/contract';
import type { DirectAdminService } from './direct-admin.service.ts';

/** The domain's Direct Admin tab: its site on the server's DirectAdmin panel. */
export const directAdminRoutes = (service: DirectAdminService) => async (app: FastifyInstance) => {
  const path = '/api/domains/:id/direct-admin';
  const config = { access: 'cnv:domains' as const };
  const tags = ['direct-admin'];
  const params = IdParamsSchema;
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

  app.get(
    `${path}/domain-info`,
    { config, schema: { tags, params, response: { 200: dataOf(DirectAdminDomainInfoSchema) } } },
    async (req) => ({ data: await service.domainInfo(idOf(req)) }),
  );
  app.post(
    `${path}/create-domain`,
    { config, schema: { tags, params, response: { 200: dataOf(DirectAdminCreateResultSchema) } } },
    async (req) => ({ data: await service.createDomain(idOf(req), req.actor) }),
  );
  app.post(
    `${path}/delete-domain`,
    { config, schema: { tags, params, response: { 200: dataOf(DirectAdminDeleteResultSchema) } } },
    async (req) => ({ data: await service.deleteDomain(idOf(req), req.actor) }),
  );
};
