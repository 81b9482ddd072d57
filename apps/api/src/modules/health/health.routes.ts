import type { FastifyInstance } from 'fastify';
import {
  DomainHealthSchema,
  HealthCheckSelectionInputSchema,
  HealthFixInputSchema,
  HealthJobStartedSchema,
  HealthSummarySchema,
  IdParamsSchema,
  dataOf,
  type HealthCheckSelectionInput,
  type HealthFixInput,
} from '@fleetdesk/contract';
import type { JobEngine } from '../../lib/jobs.ts';
import { HEALTH_CHECK_JOB, type HealthService } from './health.service.ts';

/** Fleet health: a domain's checks, "Check now" on one domain or a selection, and the fleet's counts. */
export const fleetHealthRoutes = (service: HealthService, engine: () => JobEngine) => async (app: FastifyInstance) => {
  const config = { access: 'cnv:domains' as const };
  const tags = ['health'];
  const one = dataOf(DomainHealthSchema);
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

  app.get(
    '/api/domains/:id/health',
    { config, schema: { tags, params: IdParamsSchema, response: { 200: one } } },
    async (req) => ({
      data: await service.get(idOf(req)),
    }),
  );
  app.post(
    '/api/domains/:id/health/check',
    { config, schema: { tags, params: IdParamsSchema, response: { 200: one } } },
    async (req) => ({ data: await service.checkNow(idOf(req), req.actor) }),
  );
  // Fix: the check's single-domain action with the value the check expects (audited), then the check again.
  app.post(
    '/api/domains/:id/health/fix',
    { config, schema: { tags, params: IdParamsSchema, body: HealthFixInputSchema, response: { 200: one } } },
    async (req) => ({ data: await service.fix(idOf(req), (req.body as HealthFixInput).check, req.actor) }),
  );
  app.post(
    '/api/health/check',
    {
      config,
      schema: { tags, body: HealthCheckSelectionInputSchema, response: { 202: dataOf(HealthJobStartedSchema) } },
    },
    async (req, reply) => {
      const body = req.body as HealthCheckSelectionInput;
      const row = await engine().enqueue(HEALTH_CHECK_JOB, body, { createdBy: req.actor.username });
      return reply.status(202).send({ data: { jobId: row.id, jobNo: row.jobNo } });
    },
  );
  app.get(
    '/api/health/summary',
    { config, schema: { tags, response: { 200: dataOf(HealthSummarySchema) } } },
    async () => ({
      data: await service.summary(),
    }),
  );
};
