import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  AddHostInputSchema,
  AddSitemapInputSchema,
  DomainWebmasterHostSchema,
  HostSummarySchema,
  IdParamsSchema,
  ImportantUrlSchema,
  OneClickVerifySchema,
  RecrawlInputSchema,
  RecrawlQueueSchema,
  RecrawlQuotaSchema,
  RecrawlResultSchema,
  SitemapSchema,
  UserSitemapSchema,
  VerificationSchema,
  VerifyHostInputSchema,
  WebmasterHostParamsSchema,
  WebmasterHostSchema,
  WebmasterSitemapParamsSchema,
  YandexWebmasterAccountInputSchema,
  YandexWebmasterAccountListQuerySchema,
  YandexWebmasterAccountSchema,
  dataOf,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import { mountReveal } from '../../lib/secrets.ts';
import type { YandexWebmasterService } from './yandex-webmaster.service.ts';

type HostParams = z.infer<typeof WebmasterHostParamsSchema>;

/** Accounts (CRUD), the proxied Webmaster calls under accounts/{id}/api, and a domain's host with one-click verification. */
export const yandexWebmasterRoutes = (service: YandexWebmasterService) => async (app: FastifyInstance) => {
  const path = '/api/yandex-webmaster/accounts';
  const rule = 'cnv:yandex-webmaster' as const;
  mountCrud(app, {
    path,
    rule,
    entity: YandexWebmasterAccountSchema,
    input: YandexWebmasterAccountInputSchema,
    listQuery: YandexWebmasterAccountListQuerySchema,
    service,
  });
  mountReveal(app, { path, rule, reveal: service.reveal });

  const config = { access: rule };
  const tags = ['yandex-webmaster'];
  const api = `${path}/:id/api`;
  const host = `${api}/hosts/:hostId`;
  const ok = <T extends z.ZodType>(schema: T) => ({ 200: dataOf(schema) });
  const hp = (req: { params: unknown }) => req.params as HostParams;

  app.get(
    `${api}/hosts`,
    { config, schema: { tags, params: IdParamsSchema, response: ok(z.array(WebmasterHostSchema)) } },
    async (req) => ({ data: await service.listHosts((req.params as { id: string }).id) }),
  );
  app.post(
    `${api}/hosts`,
    {
      config,
      schema: {
        tags,
        params: IdParamsSchema,
        body: AddHostInputSchema,
        response: ok(z.object({ host_id: z.string() })),
      },
    },
    async (req) => ({
      data: await service.addHost(
        (req.params as { id: string }).id,
        (req.body as z.infer<typeof AddHostInputSchema>).hostUrl,
        req.actor,
      ),
    }),
  );
  app.get(
    host,
    { config, schema: { tags, params: WebmasterHostParamsSchema, response: ok(WebmasterHostSchema) } },
    async (req) => ({ data: await service.getHost(hp(req).id, hp(req).hostId) }),
  );
  app.delete(
    host,
    {
      config,
      schema: { tags, params: WebmasterHostParamsSchema, response: ok(z.object({ host_id: z.string() })) },
    },
    async (req) => {
      await service.deleteHost(hp(req).id, hp(req).hostId, req.actor);
      return { data: { host_id: hp(req).hostId } };
    },
  );
  app.get(
    `${host}/summary`,
    { config, schema: { tags, params: WebmasterHostParamsSchema, response: ok(HostSummarySchema) } },
    async (req) => ({ data: await service.summary(hp(req).id, hp(req).hostId) }),
  );
  app.get(
    `${host}/important-urls`,
    { config, schema: { tags, params: WebmasterHostParamsSchema, response: ok(z.array(ImportantUrlSchema)) } },
    async (req) => ({ data: await service.importantUrls(hp(req).id, hp(req).hostId) }),
  );
  app.get(
    `${host}/sitemaps`,
    { config, schema: { tags, params: WebmasterHostParamsSchema, response: ok(z.array(SitemapSchema)) } },
    async (req) => ({ data: await service.sitemaps(hp(req).id, hp(req).hostId) }),
  );
  app.get(
    `${host}/user-added-sitemaps`,
    {
      config,
      schema: {
        tags,
        params: WebmasterHostParamsSchema,
        response: ok(z.object({ sitemaps: z.array(UserSitemapSchema), count: z.number() })),
      },
    },
    async (req) => ({ data: await service.userSitemaps(hp(req).id, hp(req).hostId) }),
  );
  app.post(
    `${host}/user-added-sitemaps`,
    {
      config,
      schema: {
        tags,
        params: WebmasterHostParamsSchema,
        body: AddSitemapInputSchema,
        response: ok(z.object({ sitemap_id: z.string() })),
      },
    },
    async (req) => ({
      data: await service.addUserSitemap(
        hp(req).id,
        hp(req).hostId,
        (req.body as z.infer<typeof AddSitemapInputSchema>).url,
        req.actor,
      ),
    }),
  );
  app.delete(
    `${host}/user-added-sitemaps/:sitemapId`,
    {
      config,
      schema: { tags, params: WebmasterSitemapParamsSchema, response: ok(z.object({ sitemap_id: z.string() })) },
    },
    async (req) => {
      const p = req.params as z.infer<typeof WebmasterSitemapParamsSchema>;
      await service.deleteUserSitemap(p.id, p.hostId, p.sitemapId, req.actor);
      return { data: { sitemap_id: p.sitemapId } };
    },
  );
  app.get(
    `${host}/recrawl/quota`,
    { config, schema: { tags, params: WebmasterHostParamsSchema, response: ok(RecrawlQuotaSchema) } },
    async (req) => ({ data: await service.recrawlQuota(hp(req).id, hp(req).hostId) }),
  );
  app.get(
    `${host}/recrawl/queue`,
    { config, schema: { tags, params: WebmasterHostParamsSchema, response: ok(RecrawlQueueSchema) } },
    async (req) => ({ data: await service.recrawlQueue(hp(req).id, hp(req).hostId) }),
  );
  app.post(
    `${host}/recrawl/queue`,
    {
      config,
      schema: { tags, params: WebmasterHostParamsSchema, body: RecrawlInputSchema, response: ok(RecrawlResultSchema) },
    },
    async (req) => ({
      data: await service.recrawl(
        hp(req).id,
        hp(req).hostId,
        (req.body as z.infer<typeof RecrawlInputSchema>).url,
        req.actor,
      ),
    }),
  );
  app.get(
    `${host}/verification`,
    { config, schema: { tags, params: WebmasterHostParamsSchema, response: ok(VerificationSchema) } },
    async (req) => ({ data: await service.verification(hp(req).id, hp(req).hostId) }),
  );
  app.post(
    `${host}/verification`,
    {
      config,
      schema: {
        tags,
        params: WebmasterHostParamsSchema,
        body: VerifyHostInputSchema,
        response: ok(VerificationSchema),
      },
    },
    async (req) => ({
      data: await service.verify(
        hp(req).id,
        hp(req).hostId,
        (req.body as z.infer<typeof VerifyHostInputSchema>).verificationType,
        req.actor,
      ),
    }),
  );

  // The domain's Yandex Webmaster tab: its host on the domain's account, and one-click verification.
  const domain = '/api/domains/:id/yandex-webmaster';
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
  app.get(
    `${domain}/host`,
    { config, schema: { tags, params: IdParamsSchema, response: ok(DomainWebmasterHostSchema) } },
    async (req) => ({ data: await service.domainHost(idOf(req)) }),
  );
  app.post(
    `${domain}/verify-dns`,
    { config, schema: { tags, params: IdParamsSchema, response: ok(OneClickVerifySchema) } },
    async (req) => ({ data: await service.verifyThroughDns(idOf(req), req.actor) }),
  );
  app.post(
    `${domain}/verify-file`,
    { config, schema: { tags, params: IdParamsSchema, response: ok(OneClickVerifySchema) } },
    async (req) => ({ data: await service.verifyThroughFile(idOf(req), req.actor) }),
  );
};
