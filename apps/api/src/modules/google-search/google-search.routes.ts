import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  AddGooglePropertyInputSchema,
  GoogleAnalyticsSchema,
  GoogleDomainStateSchema,
  GoogleInspectInputSchema,
  GoogleInspectionSchema,
  GoogleSearchAccountInputSchema,
  GoogleSearchAccountListQuerySchema,
  GoogleSearchAccountSchema,
  GoogleSitemapInputSchema,
  GoogleSitemapQuerySchema,
  GoogleSiteSchema,
  GoogleSitemapSchema,
  GoogleVerifyResultSchema,
  IdParamsSchema,
  dataOf,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { GoogleSearchService } from './google-search.service.ts';

/** Google accounts (CRUD; the key is never answered) and a domain's Search Console property, under the domain. */
export const googleSearchRoutes = (service: GoogleSearchService) => async (app: FastifyInstance) => {
  const rule = 'cnv:google-search' as const;
  mountCrud(app, {
    path: '/api/google-search/accounts',
    rule,
    entity: GoogleSearchAccountSchema,
    input: GoogleSearchAccountInputSchema,
    listQuery: GoogleSearchAccountListQuerySchema,
    service,
  });

  const config = { access: rule };
  const tags = ['google-search'];
  const base = '/api/domains/:id/google-search';
  const ok = <T extends z.ZodType>(schema: T) => ({ 200: dataOf(schema) });
  type Req = { params: unknown; body: unknown; query: unknown };
  const idOf = (req: Req) => (req.params as { id: string }).id;
  const urlOf = (v: unknown) => (v as { url: string }).url;
  const params = IdParamsSchema;

  app.get(
    '/api/google-search/accounts/:id/sites',
    { config, schema: { tags, params, response: ok(z.array(GoogleSiteSchema)) } },
    async (req) => ({ data: await service.sites(idOf(req)) }),
  );
  app.get(base, { config, schema: { tags, params, response: ok(GoogleDomainStateSchema) } }, async (req) => ({
    data: await service.state(idOf(req)),
  }));
  app.put(
    `${base}/property`,
    { config, schema: { tags, params, body: AddGooglePropertyInputSchema, response: ok(GoogleDomainStateSchema) } },
    async (req) => ({
      data: await service.addProperty(idOf(req), req.body as z.infer<typeof AddGooglePropertyInputSchema>, req.actor),
    }),
  );
  app.delete(
    `${base}/property`,
    { config, schema: { tags, params, response: ok(GoogleDomainStateSchema) } },
    async (req) => ({ data: await service.removeProperty(idOf(req), req.actor) }),
  );
  app.post(
    `${base}/verify`,
    { config, schema: { tags, params, response: ok(GoogleVerifyResultSchema) } },
    async (req) => ({ data: await service.verify(idOf(req), req.actor) }),
  );
  const sitemaps = ok(z.array(GoogleSitemapSchema));
  app.get(`${base}/sitemaps`, { config, schema: { tags, params, response: sitemaps } }, async (req) => ({
    data: await service.sitemaps(idOf(req)),
  }));
  app.post(
    `${base}/sitemaps`,
    { config, schema: { tags, params, body: GoogleSitemapInputSchema, response: sitemaps } },
    async (req) => ({ data: await service.submitSitemap(idOf(req), urlOf(req.body), req.actor) }),
  );
  app.delete(
    `${base}/sitemaps`,
    { config, schema: { tags, params, querystring: GoogleSitemapQuerySchema, response: sitemaps } },
    async (req) => ({ data: await service.deleteSitemap(idOf(req), urlOf(req.query), req.actor) }),
  );
  app.post(
    `${base}/inspect`,
    { config, schema: { tags, params, body: GoogleInspectInputSchema, response: ok(GoogleInspectionSchema) } },
    async (req) => ({ data: await service.inspect(idOf(req), urlOf(req.body)) }),
  );
  app.get(
    `${base}/analytics`,
    { config, schema: { tags, params, response: ok(GoogleAnalyticsSchema) } },
    async (req) => ({
      data: await service.analytics(idOf(req)),
    }),
  );
};
