import type { FastifyInstance } from 'fastify';
import {
  IdParamsSchema,
  JOB_AREAS,
  JobListQuerySchema,
  JobSchema,
  JobsPerHourQuerySchema,
  JobsPerHourSchema,
  dataOf,
  listOf,
  type JobListQuery,
  type JobsPerHourQuery,
} from '@fleetdesk/contract';
import type { JobsService } from './jobs.service.ts';

/** Any job area opens the routes; each job is then shown only to holders of its own area's rule. */
export const jobsRoutes = (service: JobsService) => async (app: FastifyInstance) => {
  const path = '/api/jobs';
  const config = { access: JOB_AREAS };
  const tags = ['jobs'];
  const one = dataOf(JobSchema);
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

  app.get(
    path,
    { config, schema: { tags, querystring: JobListQuerySchema, response: { 200: listOf(JobSchema) } } },
    async (req) => ({ data: await service.list(req.query as JobListQuery, req.actor) }),
  );
  app.get(
    `${path}/per-hour`,
    { config, schema: { tags, querystring: JobsPerHourQuerySchema, response: { 200: dataOf(JobsPerHourSchema) } } },
    async (req) => ({ data: await service.perHour(req.query as JobsPerHourQuery, req.actor) }),
  );
  app.get(`${path}/:id`, { config, schema: { tags, params: IdParamsSchema, response: { 200: one } } }, async (req) => ({
    data: await service.get(idOf(req), req.actor),
  }));
  app.post(
    `${path}/:id/cancel`,
    { config, schema: { tags, params: IdParamsSchema, response: { 200: one } } },
    async (req) => ({ data: await service.cancel(idOf(req), req.actor) }),
  );
  app.post(
    `${path}/:id/resume`,
    { config, schema: { tags, params: IdParamsSchema, response: { 202: one } } },
    async (req, reply) => reply.status(202).send({ data: await service.resume(idOf(req), req.actor) }),
  );
};
