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
import type { Actor } from '../../http/context.ts';
import { mountCrud } from '../../http/crud.ts';
import { mountReveal } from '../../lib/secrets.ts';
import type { YandexWebmasterService } from './yandex-webmaster.service.ts';

/** One proxied route: method, path and schemas; `run` gets the parsed params and body. */
type ProxiedRoute = {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  params: z.ZodType;
  body?: z.ZodType;
  response: z.ZodType;
  run: (params: unknown, body: unknown, actor: Actor) => Promise<unknown>;
};

function route<P extends z.ZodType, B extends z.ZodType = z.ZodUndefined>(
  method: ProxiedRoute['method'],
  url: string,
  s: { params: P; body?: B; response: z.ZodType },
  run: (params: z.infer<P>, body: z.infer<B>, actor: Actor) => Promise<unknown>,
): ProxiedRoute {
  // The schemas ran before the handler (validation), so the casts name what they checked.
  return { method, url, ...s, run: (p, b, actor) => run(p as z.infer<P>, b as z.infer<B>, actor) };
}

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

  // The proxied Webmaster calls: one row each, mounted by the loop below.
  const H = WebmasterHostParamsSchema;
  const proxied: ProxiedRoute[] = [
    route('GET', `${api}/hosts`, { params: IdParamsSchema, response: z.array(WebmasterHostSchema) }, (p) =>
      service.listHosts(p.id),
    ),
    route(
      'POST',
      `${api}/hosts`,
      { params: IdParamsSchema, body: AddHostInputSchema, response: z.object({ host_id: z.string() }) },
      (p, b, actor) => service.addHost(p.id, b.hostUrl, actor),
    ),
    route('GET', host, { params: H, response: WebmasterHostSchema }, (p) => service.getHost(p.id, p.hostId)),
    route('DELETE', host, { params: H, response: z.object({ host_id: z.string() }) }, async (p, _b, actor) => {
      await service.deleteHost(p.id, p.hostId, actor);
      return { host_id: p.hostId };
    }),
    route('GET', `${host}/summary`, { params: H, response: HostSummarySchema }, (p) => service.summary(p.id, p.hostId)),
    route('GET', `${host}/important-urls`, { params: H, response: z.array(ImportantUrlSchema) }, (p) =>
      service.importantUrls(p.id, p.hostId),
    ),
    route('GET', `${host}/sitemaps`, { params: H, response: z.array(SitemapSchema) }, (p) =>
      service.sitemaps(p.id, p.hostId),
    ),
    route(
      'GET',
      `${host}/user-added-sitemaps`,
      { params: H, response: z.object({ sitemaps: z.array(UserSitemapSchema), count: z.number() }) },
      (p) => service.userSitemaps(p.id, p.hostId),
    ),
    route(
      'POST',
      `${host}/user-added-sitemaps`,
      { params: H, body: AddSitemapInputSchema, response: z.object({ sitemap_id: z.string() }) },
      (p, b, actor) => service.addUserSitemap(p.id, p.hostId, b.url, actor),
    ),
    route(
      'DELETE',
      `${host}/user-added-sitemaps/:sitemapId`,
      { params: WebmasterSitemapParamsSchema, response: z.object({ sitemap_id: z.string() }) },
      async (p, _b, actor) => {
        await service.deleteUserSitemap(p.id, p.hostId, p.sitemapId, actor);
        return { sitemap_id: p.sitemapId };
      },
    ),
    route('GET', `${host}/recrawl/quota`, { params: H, response: RecrawlQuotaSchema }, (p) =>
      service.recrawlQuota(p.id, p.hostId),
    ),
    route('GET', `${host}/recrawl/queue`, { params: H, response: RecrawlQueueSchema }, (p) =>
      service.recrawlQueue(p.id, p.hostId),
    ),
    route(
      'POST',
      `${host}/recrawl/queue`,
      { params: H, body: RecrawlInputSchema, response: RecrawlResultSchema },
      (p, b, actor) => service.recrawl(p.id, p.hostId, b.url, actor),
    ),
    route('GET', `${host}/verification`, { params: H, response: VerificationSchema }, (p) =>
      service.verification(p.id, p.hostId),
    ),
    route(
      'POST',
      `${host}/verification`,
      { params: H, body: VerifyHostInputSchema, response: VerificationSchema },
      (p, b, actor) => service.verify(p.id, p.hostId, b.verificationType, actor),
    ),
  ];
  for (const r of proxied) {
    app.route({
      method: r.method,
      url: r.url,
      config,
      schema: { tags, params: r.params, ...(r.body ? { body: r.body } : {}), response: ok(r.response) },
      handler: async (req) => ({ data: await r.run(req.params, req.body, req.actor) }),
    });
  }

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
