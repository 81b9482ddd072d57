import type { FastifyInstance } from 'fastify';
import {
  ContentRestoreInputSchema,
  ContentRestorePreviewSchema,
  ContentRestoreResultSchema,
  IdParamsSchema,
  dataOf,
  type ContentRestoreInput,
} from '@fleetdesk/contract';
import type { ContentSnapshotsService } from './content-snapshots.service.ts';

/**
 * Restore of a content change (issue 44, decision 078): the preview lists the files that will change, the restore
 * puts them back. A content change's audit entry names its snapshot (`revert.snapshotId`).
 */
export const contentSnapshotsRoutes = (service: ContentSnapshotsService) => async (app: FastifyInstance) => {
  const config = { access: 'cnv:domains' as const };
  const tags = ['content-snapshots'];
  const params = IdParamsSchema;
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
  app.get(
    '/api/content-snapshots/:id',
    { config, schema: { tags, params, response: { 200: dataOf(ContentRestorePreviewSchema) } } },
    async (req) => ({ data: await service.preview(idOf(req)) }),
  );
  app.post(
    '/api/content-snapshots/:id/restore',
    {
      config,
      schema: { tags, params, body: ContentRestoreInputSchema, response: { 200: dataOf(ContentRestoreResultSchema) } },
    },
    async (req) => ({ data: await service.restore(idOf(req), req.body as ContentRestoreInput, req.actor) }),
  );
};
