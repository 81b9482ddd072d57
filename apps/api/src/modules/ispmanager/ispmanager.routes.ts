import type { FastifyInstance } from 'fastify';
import { IdParamsSchema, IspSiteInfoSchema, dataOf } from '@fleetdesk/contract';
import type { IspManagerService } from './ispmanager.service.ts';

/** The domain's ISP Manager tab: its site on the server's ISPmanager panel. */
export const ispManagerRoutes = (service: IspManagerService) => async (app: FastifyInstance) => {
  const path = '/api/domains/:id/ispmanager';
  const config = { access: 'cnv:domains' as const };
  const tags = ['ispmanager'];
  const params = IdParamsSchema;
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

  app.get(
    `${path}/site-info`,
    { config, schema: { tags, params, response: { 200: dataOf(IspSiteInfoSchema) } } },
    async (req) => ({ data: await service.siteInfo(idOf(req)) }),
  );
  app.post(
    `${path}/create-site`,
    { config, schema: { tags, params, response: { 200: dataOf(IspSiteInfoSchema) } } },
    async (req) => ({ data: await service.createSite(idOf(req), req.actor) }),
  );
};
