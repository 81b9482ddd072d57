import type { FastifyInstance } from 'fastify';
import {
  DnsChangesResultSchema,
  IdParamsSchema,
  ZONE_FILE_TEXT,
  ZoneFileExportInputSchema,
  ZoneFileExportResultSchema,
  ZoneFileApplyInputSchema,
  ZoneFilePreviewSchema,
  dataOf,
} from '@fleetdesk/contract';
import type { z } from 'zod';
import { AppError } from '../../http/errors.ts';
import type { ZoneFileExports } from './zone-file-export.ts';
import type { ZoneFileService } from './zone-file.service.ts';

/** GET zone-file (the BIND export), POST zone-file/preview (an upload's difference), POST zone-file/apply. */
export const zoneFileRoutes = (service: ZoneFileService, exports: ZoneFileExports) => async (app: FastifyInstance) => {
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

  // A selection's zone files as a zip: a job (its progress on the Jobs screen), then the zip to download.
  app.post(
    '/api/zone-files/exports',
    {
      config,
      schema: { tags, body: ZoneFileExportInputSchema, response: { 201: dataOf(ZoneFileExportResultSchema) } },
    },
    async (req, reply) => {
      const input = req.body as z.output<typeof ZoneFileExportInputSchema>;
      return reply.status(201).send({ data: await exports.start(input.selection, req.actor) });
    },
  );
  app.get(
    '/api/zone-files/exports/:id',
    { config, schema: { tags, params, produces: ['application/zip'] } },
    async (req, reply) => {
      const { fileName, content } = await exports.download(idOf(req));
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .header('cache-control', 'no-store')
        .send(content);
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
