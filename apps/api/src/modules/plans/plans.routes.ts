import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import {
  IdParamsSchema,
  ListQuerySchema,
  PLAN_KIND_NAMES,
  PLAN_PAGES,
  PlanRefSchema,
  dataOf,
  listOf,
  type ListQuery,
  type ListResult,
  type PlanRef,
} from '@fleetdesk/contract';
import { NotFoundError } from '../../http/errors.ts';
import type { Actor } from '../../http/context.ts';
import type { PlansRepository } from './plans.repository.ts';

type Verb<P> = (id: string, actor: Actor) => Promise<P>;
const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

/**
 * The routes every kind of plan answers (decision 084), under its own path: create one, list them, read one, a page
 * of its items, and the verbs of its run (run, pause, resume, cancel, retry-failed, …), each answering the plan. A
 * kind adds what is its own beside them.
 */
export function mountPlanRoutes<P, I, Q>(
  app: FastifyInstance,
  o: {
    path: string;
    tags: string[];
    /** The rule of the area the plans change. */
    access: 'cnv:domains';
    plan: z.ZodType<P>;
    /** What the list shows of a plan, when it is less than the plan. */
    summary?: z.ZodType;
    input: z.ZodType;
    item: z.ZodType<I>;
    itemsQuery: z.ZodType<Q>;
    /** Where the items are read: `items` (`rows` for a batch's names). */
    itemsPath?: string;
    create(input: unknown, actor: Actor): Promise<P>;
    list(page: number): Promise<ListResult<unknown>>;
    get(id: string): Promise<P>;
    items(id: string, q: Q, actor: Actor): Promise<ListResult<I>>;
    verbs: Record<string, Verb<P>>;
  },
) {
  const { path, tags } = o;
  const config = { access: o.access };
  const params = IdParamsSchema;
  const one = dataOf(o.plan);
  /** The options of a route answering one plan, new for each route (Fastify marks a route's schema as seen). */
  const onePlan = () => ({ config, schema: { tags, params, response: { 200: one } } });

  app.post(path, { config, schema: { tags, body: o.input, response: { 201: one } } }, async (req, reply) =>
    reply.status(201).send({ data: await o.create(req.body, req.actor) }),
  );
  app.get(
    path,
    { config, schema: { tags, querystring: ListQuerySchema, response: { 200: listOf(o.summary ?? o.plan) } } },
    async (req) => ({ data: await o.list((req.query as ListQuery).page) }),
  );
  app.get(`${path}/:id`, onePlan(), async (req) => ({ data: await o.get(idOf(req)) }));
  app.get(
    `${path}/:id/${o.itemsPath ?? 'items'}`,
    { config, schema: { tags, params, querystring: o.itemsQuery, response: { 200: listOf(o.item) } } },
    async (req) => ({ data: await o.items(idOf(req), req.query as Q, req.actor) }),
  );
  for (const [verb, fn] of Object.entries(o.verbs))
    app.post(`${path}/:id/${verb}`, onePlan(), async (req) => ({ data: await fn(idOf(req), req.actor) }));
}

/**
 * `GET /api/plans/{id}`: a plan of any kind by its id, with its kind, number, state and page, so that one address
 * (`/plans/{id}` in the console) leads to any plan.
 */
export const plansRoutes = (repo: PlansRepository) => async (app: FastifyInstance) => {
  app.get(
    '/api/plans/:id',
    {
      config: { access: 'cnv:domains' as const },
      schema: { tags: ['plans'], params: IdParamsSchema, response: { 200: dataOf(PlanRefSchema) } },
    },
    async (req) => {
      const p = await repo.findAny(idOf(req));
      if (!p) throw new NotFoundError('Plan not found');
      const ref: PlanRef = {
        _id: p.id,
        kind: p.kind,
        planNo: p.planNo,
        name: `${PLAN_KIND_NAMES[p.kind]} #${p.planNo}`,
        state: p.state,
        path: PLAN_PAGES[p.kind](p.id),
      };
      return { data: ref };
    },
  );
};
