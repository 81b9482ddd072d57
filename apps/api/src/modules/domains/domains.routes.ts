import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  DomainExportQuerySchema,
  DomainFirewallRuleDetailSchema,
  DomainFirewallRulesInputSchema,
  DomainInputSchema,
  DomainListItemSchema,
  DomainListQuerySchema,
  DomainSchema,
  DomainUpdateInputSchema,
  IdParamsSchema,
  dataOf,
  type DomainFirewallRulesInput,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { DomainsService } from './domains.service.ts';

export const domainsRoutes = (service: DomainsService) => async (app: FastifyInstance) => {
  const path = '/api/domains';
  const config = { access: 'cnv:domains' as const };
  const tags = ['domains'];
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
  const rulesList = dataOf(z.object({ items: z.array(DomainFirewallRuleDetailSchema) }));

  // A static path: it wins over /api/domains/:id.
  app.get(
    `${path}/export`,
    { config, schema: { tags, querystring: DomainExportQuerySchema, produces: ['text/csv'] } },
    async (req, reply) => {
      const filter = req.query as z.infer<typeof DomainExportQuerySchema>;
      // The query is validated and the first chunk (header and first batch) produced before any byte is sent,
      // so a bad filter or a failing database still answers with a status, not a cut-off file.
      const chunks = service.exportCsv(filter);
      const first = await chunks.next();
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="domains.csv"')
        .header('cache-control', 'no-store');
      async function* all() {
        if (!first.done) yield first.value;
        yield* chunks;
      }
      return reply.send(Readable.from(all()));
    },
  );

  mountCrud(app, {
    path,
    rule: 'cnv:domains',
    entity: DomainSchema,
    input: DomainInputSchema,
    updateInput: DomainUpdateInputSchema,
    listQuery: DomainListQuerySchema,
    listItem: { schema: DomainListItemSchema, asked: (q) => q.view === 'list' },
    service,
  });

  app.get(
    `${path}/:id/firewall-rules`,
    { config, schema: { tags, params: IdParamsSchema, response: { 200: rulesList } } },
    async (req) => ({ data: { items: await service.getFirewallRules(idOf(req)) } }),
  );
  app.post(
    `${path}/:id/firewall-rules`,
    {
      config,
      schema: { tags, params: IdParamsSchema, body: DomainFirewallRulesInputSchema, response: { 200: rulesList } },
    },
    async (req) => ({
      data: { items: await service.saveFirewallRules(idOf(req), req.body as DomainFirewallRulesInput, req.actor) },
    }),
  );
};
