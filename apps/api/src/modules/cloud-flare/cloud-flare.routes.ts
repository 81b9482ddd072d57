import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  CloudZoneIdsSchema,
  CloudZoneInfoSchema,
  CloudZoneListSchema,
  CloudZonesQuerySchema,
  CreateZoneResultSchema,
  DnsChangesInputSchema,
  DnsChangesResultSchema,
  DnsRecordListSchema,
  IdParamsSchema,
  LinkZoneInputSchema,
  PurgeCacheResultSchema,
  RedirectRulesResultSchema,
  RedirectRulesSchema,
  SslSettingInputSchema,
  Tls13SettingInputSchema,
  UpdateFirewallRulesResultSchema,
  ZoneSettingSchema,
  dataOf,
  type RedirectRules,
} from '@fleetdesk/contract';
import type { CloudFlareService } from './cloud-flare.service.ts';

/** The console's Cloudflare actions on a domain, for the domain's cloud. */
export const cloudFlareRoutes = (service: CloudFlareService) => async (app: FastifyInstance) => {
  const path = '/api/domains/:id/cloud-flare';
  const config = { access: 'cnv:domains' as const };
  const tags = ['cloud-flare'];
  const params = IdParamsSchema;
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
  const ok = <T extends z.ZodType>(schema: T) => ({ 200: dataOf(schema) });

  app.get(
    `${path}/zone-info`,
    { config, schema: { tags, params, response: { 200: CloudZoneInfoSchema } } },
    async (req) => service.zoneInfo(idOf(req), req.actor),
  );
  app.get(
    `${path}/zones`,
    { config, schema: { tags, params, querystring: CloudZonesQuerySchema, response: ok(CloudZoneListSchema) } },
    async (req) => ({
      data: await service.listZones(idOf(req), req.query as z.infer<typeof CloudZonesQuerySchema>, req.actor),
    }),
  );
  app.post(
    `${path}/create-zone`,
    { config, schema: { tags, params, response: ok(CreateZoneResultSchema) } },
    async (req) => ({ data: await service.createZone(idOf(req), req.actor) }),
  );
  app.delete(
    `${path}/delete-zone`,
    { config, schema: { tags, params, response: ok(CloudZoneIdsSchema) } },
    async (req) => ({ data: await service.deleteZone(idOf(req), req.actor) }),
  );
  app.put(
    `${path}/link-zone`,
    { config, schema: { tags, params, body: LinkZoneInputSchema, response: ok(CloudZoneIdsSchema) } },
    async (req) => ({
      data: await service.linkZone(idOf(req), (req.body as z.infer<typeof LinkZoneInputSchema>).cloudZoneId, req.actor),
    }),
  );
  app.put(
    `${path}/unlink-zone`,
    { config, schema: { tags, params, response: ok(CloudZoneIdsSchema) } },
    async (req) => ({ data: await service.unlinkZone(idOf(req), req.actor) }),
  );
  app.post(
    `${path}/update-firewall-rules`,
    { config, schema: { tags, params, response: ok(UpdateFirewallRulesResultSchema) } },
    async (req) => ({ data: await service.updateFirewallRules(idOf(req), req.actor) }),
  );

  app.get(
    `${path}/settings/ssl`,
    { config, schema: { tags, params, response: ok(ZoneSettingSchema) } },
    async (req) => ({ data: await service.getSetting(idOf(req), 'ssl', req.actor) }),
  );
  app.put(
    `${path}/settings/ssl`,
    { config, schema: { tags, params, body: SslSettingInputSchema, response: ok(ZoneSettingSchema) } },
    async (req) => ({
      data: await service.setSsl(idOf(req), (req.body as z.infer<typeof SslSettingInputSchema>).value, req.actor),
    }),
  );
  app.get(
    `${path}/settings/tls_1_3`,
    { config, schema: { tags, params, response: ok(ZoneSettingSchema) } },
    async (req) => ({ data: await service.getSetting(idOf(req), 'tls_1_3', req.actor) }),
  );
  app.put(
    `${path}/settings/tls_1_3`,
    { config, schema: { tags, params, body: Tls13SettingInputSchema, response: ok(ZoneSettingSchema) } },
    async (req) => ({
      data: await service.setTls13(idOf(req), (req.body as z.infer<typeof Tls13SettingInputSchema>).value, req.actor),
    }),
  );

  app.get(
    `${path}/dns_records`,
    { config, schema: { tags, params, response: ok(DnsRecordListSchema) } },
    async (req) => ({ data: await service.listDnsRecords(idOf(req), req.actor) }),
  );
  app.post(
    `${path}/dns_records`,
    { config, schema: { tags, params, body: DnsChangesInputSchema, response: ok(DnsChangesResultSchema) } },
    async (req) => ({
      data: await service.changeDnsRecords(idOf(req), req.body as z.infer<typeof DnsChangesInputSchema>, req.actor),
    }),
  );

  app.get(
    `${path}/redirect-rules`,
    { config, schema: { tags, params, response: ok(RedirectRulesResultSchema) } },
    async (req) => ({ data: await service.getRedirectRules(idOf(req), req.actor) }),
  );
  app.post(
    `${path}/redirect-rules`,
    { config, schema: { tags, params, body: RedirectRulesSchema, response: ok(RedirectRulesResultSchema) } },
    async (req) => ({ data: await service.setRedirectRules(idOf(req), req.body as RedirectRules, req.actor) }),
  );

  app.post(
    `${path}/purge-cache`,
    { config, schema: { tags, params, response: ok(PurgeCacheResultSchema) } },
    async (req) => ({ data: await service.purgeCache(idOf(req), req.actor) }),
  );
};
