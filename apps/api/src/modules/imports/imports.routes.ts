import type { FastifyInstance } from 'fastify';
import {
  IdParamsSchema,
  ImportItemSchema,
  ImportItemsQuerySchema,
  ImportPlanInputSchema,
  ImportPlanSchema,
  ListQuerySchema,
  dataOf,
  listOf,
  type ImportItemsQuery,
  type ImportPlanInput,
  type ListQuery,
} from '@fleetdesk/contract';
import type { ImportsService } from './imports.service.ts';

/** Imports: plan one from a source, read the plan and its names, run it, cancel it. */
export const importsRoutes = (service: ImportsService) => async (app: FastifyInstance) => {
  const path = '/api/imports';
  // Every import creates or changes domains: the domains area's rule.
  const config = { access: 'cnv:domains' as const };
  const tags = ['imports'];
  const params = IdParamsSchema;
  const one = dataOf(ImportPlanSchema);
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

  app.post(
    path,
    { config, schema: { tags, body: ImportPlanInputSchema, response: { 201: one } } },
    async (req, reply) =>
      reply.status(201).send({ data: await service.create(req.body as ImportPlanInput, req.actor) }),
  );
  app.get(
    path,
    { config, schema: { tags, querystring: ListQuerySchema, response: { 200: listOf(ImportPlanSchema) } } },
    async (req) => ({ data: await service.list((req.query as ListQuery).page) }),
  );
  app.get(`${path}/:id`, { config, schema: { tags, params, response: { 200: one } } }, async (req) => ({
    data: await service.get(idOf(req)),
  }));
  app.get(
    `${path}/:id/items`,
    {
      config,
      schema: { tags, params, querystring: ImportItemsQuerySchema, response: { 200: listOf(ImportItemSchema) } },
    },
    async (req) => ({ data: await service.items(idOf(req), req.query as ImportItemsQuery, req.actor) }),
  );
  app.post(`${path}/:id/run`, { config, schema: { tags, params, response: { 200: one } } }, async (req) => ({
    data: await service.run(idOf(req), req.actor),
  }));
  app.post(`${path}/:id/cancel`, { config, schema: { tags, params, response: { 200: one } } }, async (req) => ({
    data: await service.cancel(idOf(req), req.actor),
  }));
};
