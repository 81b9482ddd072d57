import type { FastifyInstance } from 'fastify';
import {
  DnsChangesResultSchema,
  IdParamsSchema,
  ZONE_FILE_TEXT,
  ZoneFileApplyInputSchema,
  ZoneFilePreviewSchema,
  dataOf,
} from '@fleetdesk/contract';
import type { z } from 'zod';
import { AppError } from '../../http/errors.ts';
import type { ZoneFileService } from './zone-file.service.ts';

/** GET zone-file (the BIND export), POST zone-file/preview (an upload's difference), POST zone-file/apply. */
export const zoneFileRoutes = (service: ZoneFileService) => async (app: FastifyInstance) => {
  const path = '/api/domains/:id/cloud-flare/zone-file';
  const config = { access: 'cnv:domains' as const };
  const tags = ['cloud-flare'];
  const params = IdParamsSchema;
  const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

  // The upload stays a stream: the reader bounds its size and reads it line by line (this plugin only).
  app.addContentTypeParser(['text/plain', 'application/octet-stream', 'text/dns'], (_req, payload, done) =>
    done(null, payload),
  );

  app.get(path, { config, schema: { tags, params, produces: ['text/plain'] } }, async (req, reply) => {
    const { fileName, text } = await service.exportZone(idOf(req), req.actor);
    return reply
      .header('content-type', 'text/plain; charset=utf-8')
      .header('content-disposition', `attachment; filename="${fileName.replace(/["\\\r\n]/g, '_')}"`)
      .header('cache-control', 'no-store')
      .send(text);
  });

  app.post(
    `${path}/preview`,
    { config, schema: { tags, params, consumes: ['text/plain'], response: { 200: dataOf(ZoneFilePreviewSchema) } } },
    async (req) => {
      const body = req.body as unknown;
      if (!body || typeof (body as AsyncIterable<Buffer>)[Symbol.asyncIterator] !== 'function') {
        throw new AppError(415, 'unsupported_media_type', ZONE_FILE_TEXT.mediaType);
      }
      return { data: await service.preview(idOf(req), body as AsyncIterable<Buffer>, req.actor) };
    },
  );

  app.post(
    `${path}/apply`,
    {
      config,
      schema: { tags, params, body: ZoneFileApplyInputSchema, response: { 200: dataOf(DnsChangesResultSchema) } },
    },
    async (req) => {
      const input = req.body as z.output<typeof ZoneFileApplyInputSchema>;
      return { data: await service.apply(idOf(req), input.fileName, input.changes, req.actor) };
    },
  );
};
