import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import {
  FleetForceInputSchema,
  FleetItemParamsSchema,
  FleetItemSchema,
  FleetItemsQuerySchema,
  FleetPlanInputSchema,
  FleetPlanSchema,
  FleetPlanSummarySchema,
  FleetRevertInputSchema,
  FleetRunInputSchema,
  FleetTimelineSchema,
  IdParamsSchema,
  dataOf,
  type FleetForceInput,
  type FleetPlanInput,
  type FleetRevertInput,
  type FleetRunInput,
} from '@fleetdesk/contract';
import { mountPlanRoutes } from '../plans/plans.routes.ts';
import type { FleetService } from './fleet.service.ts';

/** Fleet operations: plan a change over many domains, read the plan, run it, follow and steer the run. */
export const fleetRoutes = (service: FleetService) => async (app: FastifyInstance) => {
  const path = '/api/fleet/plans';
  // The rule of the area a fleet action changes: every action changes domains.
  const config = { access: 'cnv:domains' as const };
  const tags = ['fleet'];
  const params = IdParamsSchema;
  const one = dataOf(FleetPlanSchema);
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

  // Run is the fleet's own (below): it takes the safety threshold `maxChanges`.
  mountPlanRoutes(app, {
    path,
    tags,
    access: config.access,
    plan: FleetPlanSchema,
    summary: FleetPlanSummarySchema,
    input: FleetPlanInputSchema,
    item: FleetItemSchema,
    itemsQuery: FleetItemsQuerySchema,
    create: (input, actor) => service.create(input as FleetPlanInput, actor),
    list: service.list,
    get: service.get,
    items: service.items,
    verbs: {
      pause: service.pause,
      resume: service.resume,
      cancel: service.cancel,
      'retry-failed': service.retryFailed,
    },
  });
  app.get(
    `${path}/:id/timeline`,
    { config, schema: { tags, params, response: { 200: dataOf(FleetTimelineSchema) } } },
    async (req) => ({ data: await service.timeline(idOf(req)) }),
  );
  app.get(`${path}/:id/csv`, { config, schema: { tags, params, produces: ['text/csv'] } }, async (req, reply) => {
    // The plan is found (or a 404 answered) before any byte is sent.
    const chunks = service.csv(idOf(req));
    const first = await chunks.next();
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="fleet-plan.csv"`)
      .header('cache-control', 'no-store');
    async function* all() {
      if (!first.done) yield first.value;
      yield* chunks;
    }
    return reply.send(Readable.from(all()));
  });
  // Run takes an optional safety threshold: refused when the plan changes more domains than `maxChanges`.
  app.post(
    `${path}/:id/run`,
    { config, schema: { tags, params, body: FleetRunInputSchema.nullish(), response: { 200: one } } },
    async (req) => ({
      data: await service.run(idOf(req), req.actor, (req.body as FleetRunInput | null | undefined) ?? {}),
    }),
  );
  // Undo (issue 44): one route plans the revert of a run or of an audited change, shown like any plan; a
  // changed-since row ticked or not.
  app.post(
    '/api/fleet/reverts',
    { config, schema: { tags, body: FleetRevertInputSchema, response: { 201: one } } },
    async (req, reply) =>
      reply.status(201).send({ data: await service.revert(req.body as FleetRevertInput, req.actor) }),
  );
  app.post(
    `${path}/:id/items/:seq/force`,
    {
      config,
      schema: {
        tags,
        params: FleetItemParamsSchema,
        body: FleetForceInputSchema,
        response: { 200: dataOf(FleetItemSchema) },
      },
    },
    async (req) => {
      const { id, seq } = req.params as { id: string; seq: number };
      return { data: await service.forceItem(id, seq, (req.body as FleetForceInput).force, req.actor) };
    },
  );
};
