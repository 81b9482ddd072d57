import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AuditEntrySchema, AuditListQuerySchema, listOf } from '@fleetdesk/contract';
import type { AuditService } from './audit.service.ts';

export const auditRoutes =
  (audit: AuditService): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/audit-log',
      {
        config: { access: 'cnv' },
        schema: { tags: ['audit'], querystring: AuditListQuerySchema, response: { 200: listOf(AuditEntrySchema) } },
      },
      async (req) => ({ data: await audit.list(req.query) }),
    );
  };
