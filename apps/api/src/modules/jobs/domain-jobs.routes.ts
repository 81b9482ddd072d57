import type { FastifyInstance } from 'fastify';
import {
  DomainReplacementInputSchema,
  DomainTargetInputSchema,
  IdParamsSchema,
  JobSchema,
  ParsingStartInputSchema,
  dataOf,
  type ParsingStartInput,
} from '@fleetdesk/contract';
import type { JobsService } from './jobs.service.ts';
import type { ParsingService } from './parsing.service.ts';

/** The domain actions that run as jobs: each answers 202 with the queued job, which the page then polls. */
export const domainJobsRoutes = (service: JobsService, parsing: ParsingService) => async (app: FastifyInstance) => {
  const config = { access: 'cnv:domains' as const };
  const tags = ['domains'];
  const response = { 202: dataOf(JobSchema) };
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
  const actions = [
    { path: 'generate-sitemap', kind: 'domains.generate-sitemap', body: undefined },
    { path: 'copy-content-files', kind: 'domains.copy-content-files', body: DomainTargetInputSchema },
    { path: 'replacement', kind: 'domains.replacement', body: DomainReplacementInputSchema },
  ] as const;
  for (const a of actions) {
    app.post(
      `/api/domains/:id/${a.path}`,
      { config, schema: { tags, params: IdParamsSchema, ...(a.body ? { body: a.body } : {}), response } },
      async (req, reply) => {
        // Only the schema's fields go into the payload (zod drops unknown ones); sitemap takes no body.
        const body = a.body ? (req.body as Record<string, unknown>) : {};
        const job = await service.startForDomain(a.kind, idOf(req), body, req.actor);
        return reply.status(202).send({ data: job });
      },
    );
  }
  // Parsing checks the domain first (parser URL, server, directory, proxies, parser_disabled): its own service.
  app.post(
    '/api/domains/:id/parsing',
    { config, schema: { tags, params: IdParamsSchema, body: ParsingStartInputSchema, response } },
    async (req, reply) => {
      const job = await parsing.start(idOf(req), (req.body ?? {}) as ParsingStartInput, req.actor);
      return reply.status(202).send({ data: job });
    },
  );
};
