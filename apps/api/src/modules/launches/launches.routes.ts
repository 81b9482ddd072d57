import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import {
  IdParamsSchema,
  LaunchBatchInputSchema,
  LaunchBatchRowSchema,
  LaunchBatchRowsQuerySchema,
  LaunchBatchSchema,
  LaunchConfirmInputSchema,
  LaunchInputSchema,
  LaunchRegisterAloneInputSchema,
  LaunchRegistrationCheckInputSchema,
  LaunchRegistrationCheckSchema,
  RegisterDomainResultSchema,
  LaunchListQuerySchema,
  LaunchPlanSchema,
  LaunchSchema,
  LaunchStageParamsSchema,
  dataOf,
  listOf,
  type LaunchBatchInputParsed,
  type LaunchBatchRowsQuery,
  type LaunchConfirmInput,
  type LaunchInputParsed,
  type LaunchListQuery,
  type LaunchStageKey,
} from '@fleetdesk/contract';
import { mountPlanRoutes } from '../plans/plans.routes.ts';
import type { LaunchBatchesService } from './launch-batches.service.ts';
import type { LaunchesService } from './launches.service.ts';

/**
 * Launches: plan (dryRun) or start one, read them, retry a failed stage, confirm the costly stage, cancel; and
 * batches of many names: plan, read the rows, run, pause, resume, cancel, retry the failed names.
 */
export const launchesRoutes =
  (service: LaunchesService, batches: LaunchBatchesService) => async (app: FastifyInstance) => {
    const path = '/api/launches';
    // A launch creates and changes a domain everywhere: the domains area's rule.
    const config = { access: 'cnv:domains' as const };
    const tags = ['launches'];
    const params = IdParamsSchema;
    const one = dataOf(LaunchSchema);
    /** A launch's own route: its id in the path, the launch in the answer (`more`: its other params, its body). */
    const onOne = (more: object = {}) => ({ config, schema: { tags, params, response: { 200: one }, ...more } });
    /** A route that takes `body` and answers `data`. */
    const posted = (body: z.ZodType, data: z.ZodType) => ({
      config,
      schema: { tags, body, response: { 200: dataOf(data) } },
    });
    const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

    // Batches: plans of the kind launches, with the verbs of their run and Confirm all.
    mountPlanRoutes(app, {
      path: `${path}/batches`,
      tags,
      access: config.access,
      plan: LaunchBatchSchema,
      input: LaunchBatchInputSchema,
      item: LaunchBatchRowSchema,
      itemsQuery: LaunchBatchRowsQuerySchema,
      itemsPath: 'rows',
      create: (input, actor) => batches.create(input as LaunchBatchInputParsed, actor),
      list: batches.list,
      get: batches.get,
      items: (id, q) => batches.rows(id, q as LaunchBatchRowsQuery),
      verbs: {
        run: batches.run,
        pause: batches.pause,
        resume: batches.resume,
        cancel: batches.cancel,
        'retry-failed': batches.retryFailed,
        'confirm-all': batches.confirmAll,
      },
    });

    app.post(
      path,
      { config, schema: { tags, body: LaunchInputSchema, response: { 200: dataOf(LaunchPlanSchema), 201: one } } },
      async (req, reply) => {
        const r = await service.create(req.body as LaunchInputParsed, req.actor);
        return 'plan' in r ? reply.status(200).send({ data: r.plan }) : reply.status(201).send({ data: r.launch });
      },
    );
    app.get(
      path,
      { config, schema: { tags, querystring: LaunchListQuerySchema, response: { 200: listOf(LaunchSchema) } } },
      async (req) => ({ data: await service.list(req.query as LaunchListQuery) }),
    );
    app.get(`${path}/:id`, onOne(), async (req) => ({ data: await service.get(idOf(req)) }));
    app.post(`${path}/:id/steps/:stage/retry`, onOne({ params: LaunchStageParamsSchema }), async (req) => {
      const p = req.params as { id: string; stage: LaunchStageKey };
      return { data: await service.retry(p.id, p.stage, req.actor) };
    });
    app.post(`${path}/:id/retry`, onOne(), async (req) => ({ data: await service.retry(idOf(req), null, req.actor) }));
    app.post(`${path}/:id/confirm`, onOne({ body: LaunchConfirmInputSchema.nullish() }), async (req) => ({
      data: await service.confirm(idOf(req), req.actor, (req.body as LaunchConfirmInput | null | undefined)?.stage),
    }));

    // A console domain not at our registrator: checked (availability, price), then registered on its own.
    app.post(
      `${path}/registration/check`,
      posted(LaunchRegistrationCheckInputSchema, LaunchRegistrationCheckSchema),
      async (req) => ({
        data: await service.registrationCheck(req.body as z.output<typeof LaunchRegistrationCheckInputSchema>),
      }),
    );
    app.post(
      `${path}/registration`,
      posted(LaunchRegisterAloneInputSchema, RegisterDomainResultSchema),
      async (req) => {
        const b = req.body as z.output<typeof LaunchRegisterAloneInputSchema>;
        return { data: await service.registerAlone({ ...b, contactId: b.contactId! }, req.actor) };
      },
    );
    app.post(`${path}/:id/cancel`, onOne(), async (req) => ({ data: await service.cancel(idOf(req), req.actor) }));
  };
