import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  DomainInfoQuerySchema,
  IdParamsSchema,
  RegisterDomainInputSchema,
  RegisterDomainResultSchema,
  RegistrarNameServersResultSchema,
  RegistratorDomainInfoSchema,
  RegistratorDomainSchema,
  RegistratorDomainsQuerySchema,
  RegistratorImportInputSchema,
  RegistratorImportResultSchema,
  dataOf,
  listOf,
} from '@fleetdesk/contract';
import type { RegistrarService } from './registrar.service.ts';

/**
 * The registrar calls (spec 2 §7): domain info and the account's domains under the registrator; register and
 * the name-servers action under the domain, where the screens that use them sit.
 */
export const registrarRoutes = (service: RegistrarService) => async (app: FastifyInstance) => {
  const params = IdParamsSchema;
  const tags = ['registrar'];
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
  // The Domain Registrator tab, the register page and the cloud action are domain screens; the account's list
  // and its import belong to the registrators area.
  const domainsArea = { access: 'cnv:domains' as const };
  const registratorsArea = { access: 'cnv:domainRegistrators' as const };

  app.get(
    '/api/domain-registrators/:id/domain-info',
    {
      config: { access: ['cnv:domains', 'cnv:domainRegistrators'] as const },
      schema: { tags, params, querystring: DomainInfoQuerySchema, response: { 200: RegistratorDomainInfoSchema } },
    },
    async (req) =>
      service.domainInfo(idOf(req), (req.query as z.infer<typeof DomainInfoQuerySchema>).domainName, req.actor),
  );
  app.get(
    '/api/domain-registrators/:id/domains',
    {
      config: registratorsArea,
      schema: {
        tags,
        params,
        querystring: RegistratorDomainsQuerySchema,
        response: { 200: listOf(RegistratorDomainSchema) },
      },
    },
    async (req) => ({
      data: await service.listDomains(idOf(req), req.query as z.infer<typeof RegistratorDomainsQuerySchema>),
    }),
  );
  app.post(
    '/api/domain-registrators/:id/import',
    {
      config: { access: 'cnv:domainRegistrators' as const },
      schema: {
        tags,
        params,
        body: RegistratorImportInputSchema,
        response: { 200: dataOf(RegistratorImportResultSchema) },
      },
    },
    async (req) => ({
      data: await service.importDomains(
        idOf(req),
        (req.body as z.infer<typeof RegistratorImportInputSchema>).domainNames,
        req.actor,
      ),
    }),
  );
  app.post(
    '/api/domains/:id/register',
    {
      config: domainsArea,
      schema: { tags, params, body: RegisterDomainInputSchema, response: { 200: dataOf(RegisterDomainResultSchema) } },
    },
    async (req) => {
      const body = req.body as z.output<typeof RegisterDomainInputSchema>;
      return { data: await service.register(idOf(req), body.domainRegistratorContactId!, body.years, req.actor) };
    },
  );
  app.post(
    '/api/domains/:id/registrar/name-servers',
    { config: domainsArea, schema: { tags, params, response: { 200: dataOf(RegistrarNameServersResultSchema) } } },
    async (req) => ({ data: await service.setNameServers(idOf(req), req.actor) }),
  );
};
