import type { FastifyInstance } from 'fastify';
import {
  DomainFilterPageSchema,
  FLEET_STATE_BODY_MAX_BYTES,
  FleetPlanSchema,
  FleetStateExportSchema,
  FleetStateFileSchema,
  dataOf,
  type DomainFilter,
  type FleetStateFile,
} from '@fleetdesk/contract';
import type { FleetStateService } from './fleet-state.service.ts';

/** The fleet as code (issue 45): export the console's state as a file, plan a file as a fleet plan. */
export const fleetStateRoutes = (service: FleetStateService) => async (app: FastifyInstance) => {
  // Like every fleet plan: the domains area.
  const config = { access: 'cnv:domains' as const };
  const tags = ['fleet'];
  app.get(
    '/api/fleet/state',
    {
      config,
      schema: { tags, querystring: DomainFilterPageSchema, response: { 200: dataOf(FleetStateExportSchema) } },
    },
    async (req) => {
      const { page, ...filter } = req.query as DomainFilter & { page: number };
      return { data: await service.export(filter as DomainFilter, page, req.actor) };
    },
  );
  app.post(
    '/api/fleet/state/plans',
    {
      config,
      // A file of hundreds of domains is larger than the usual body; still bounded.
      bodyLimit: FLEET_STATE_BODY_MAX_BYTES,
      schema: { tags, body: FleetStateFileSchema, response: { 201: dataOf(FleetPlanSchema) } },
    },
    async (req, reply) => reply.status(201).send({ data: await service.plan(req.body as FleetStateFile, req.actor) }),
  );
};
