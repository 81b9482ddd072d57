import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyMultipart from '@fastify/multipart';
import { z } from 'zod';
import {
  ContentFileContentSchema,
  ContentFileCreateDirInputSchema,
  ContentFileItemsSchema,
  ContentFilePathResultSchema,
  ContentFileRemoveInputSchema,
  ContentFileRenameInputSchema,
  ContentFilesDirSchema,
  ContentFilesPathQuerySchema,
  ContentFilesRequiredPathQuerySchema,
  ContentFilesUploadResultSchema,
  IdParamsSchema,
  dataOf,
} from '@fleetdesk/contract';
import { AppError } from '../../http/errors.ts';
import { PayloadTooLargeError } from '../../files/content/index.ts';
import type { ContentFilesLimits, ContentFilesService, UploadPart } from './content-files.service.ts';

/** Most filesPathes values one upload may carry: one per file, with room for a few stray fields. */
const MAX_PATH_FIELD_BYTES = 8192;

/** The file manager of a domain's directory on its server (spec §7, "Content files"). */
export const contentFilesRoutes =
  (service: ContentFilesService, limits: ContentFilesLimits) => async (app: FastifyInstance) => {
    const base = '/api/domains/:id';
    const config = { access: 'cnv:domains' as const };
    const tags = ['content-files'];
    const params = IdParamsSchema;
    const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
    const pathOf = (req: { query: unknown }) => (req.query as { path: string }).path;
    const ok = <T extends z.ZodType>(schema: T) => ({ 200: dataOf(schema) });

    // Scoped to this plugin: uploads stream part by part (request.parts()), never buffered whole.
    await app.register(fastifyMultipart, {
      throwFileSizeLimit: true,
      limits: {
        // One byte over our limit, so our own counter answers first, with the file's name in the message.
        fileSize: limits.maxFileBytes + 1,
        files: limits.maxFiles,
        fields: limits.maxFiles + 10,
        fieldSize: MAX_PATH_FIELD_BYTES,
        parts: limits.maxFiles * 2 + 10,
        headerPairs: 100,
      },
    });

    /** The request's parts as uploads: the i-th `files` part takes the i-th `filesPathes` value, else its name. */
    async function* uploadParts(req: FastifyRequest): AsyncIterable<UploadPart> {
      const pathes: string[] = [];
      let index = 0;
      try {
        for await (const part of req.parts()) {
          if (part.type === 'field') {
            if (part.fieldname === 'filesPathes') pathes.push(String(part.value));
            continue;
          }
          if (part.fieldname !== 'files') {
            part.file.resume();
            throw new AppError(400, 'bad_field', `Unexpected file field "${part.fieldname}"; send files as "files"`);
          }
          yield { relativePath: pathes[index] ?? part.filename, stream: part.file };
          index++;
        }
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
          throw new PayloadTooLargeError(`At most ${limits.maxFiles} files can be uploaded at once`, 'too_many_files');
        }
        if (code === 'FST_REQ_FILE_TOO_LARGE') {
          throw new PayloadTooLargeError(`A file is larger than the upload limit of ${limits.maxFileBytes} bytes`);
        }
        throw err;
      }
    }

    app.get(
      `${base}/content-files-dir`,
      { config, schema: { tags, params, response: ok(ContentFilesDirSchema) } },
      async (req) => ({ data: await service.dirInfo(idOf(req)) }),
    );
    app.post(
      `${base}/content-files/create-domain-dir`,
      { config, schema: { tags, params, response: ok(ContentFilesDirSchema) } },
      async (req) => ({ data: await service.createDomainDir(idOf(req), req.actor) }),
    );
    app.get(
      `${base}/content-files`,
      {
        config,
        schema: { tags, params, querystring: ContentFilesPathQuerySchema, response: ok(ContentFileItemsSchema) },
      },
      async (req) => ({ data: { items: await service.list(idOf(req), pathOf(req)) } }),
    );
    app.get(
      `${base}/content-files/file-content`,
      {
        config,
        schema: {
          tags,
          params,
          querystring: ContentFilesRequiredPathQuerySchema,
          response: ok(ContentFileContentSchema),
        },
      },
      async (req) => ({ data: { fileContent: await service.readText(idOf(req), pathOf(req)) } }),
    );
    app.put(
      `${base}/content-files/file-content`,
      {
        config,
        // Fastify's text/plain parser, bounded here by the editor's limit: a larger body is a 413.
        bodyLimit: limits.maxEditBytes,
        schema: {
          tags,
          params,
          querystring: ContentFilesRequiredPathQuerySchema,
          consumes: ['text/plain'],
          response: ok(ContentFilePathResultSchema),
        },
      },
      async (req) => {
        const body = req.body;
        if (body !== undefined && body !== null && typeof body !== 'string') {
          throw new AppError(415, 'unsupported_media_type', 'Send the file content as text/plain');
        }
        return { data: { path: await service.saveText(idOf(req), pathOf(req), body ?? '', req.actor) } };
      },
    );
    app.post(
      `${base}/content-files/rename`,
      {
        config,
        schema: {
          tags,
          params,
          querystring: ContentFilesRequiredPathQuerySchema,
          body: ContentFileRenameInputSchema,
          response: ok(ContentFilePathResultSchema),
        },
      },
      async (req) => ({
        data: { path: await service.rename(idOf(req), pathOf(req), (req.body as { name: string }).name, req.actor) },
      }),
    );
    app.delete(
      `${base}/content-files/remove`,
      {
        config,
        schema: { tags, params, body: ContentFileRemoveInputSchema, response: ok(ContentFilePathResultSchema) },
      },
      async (req) => ({
        data: { path: await service.remove(idOf(req), (req.body as { path: string }).path, req.actor) },
      }),
    );
    app.post(
      `${base}/content-files/create-dir`,
      {
        config,
        schema: { tags, params, body: ContentFileCreateDirInputSchema, response: ok(ContentFilePathResultSchema) },
      },
      async (req) => {
        const { path, name } = req.body as z.infer<typeof ContentFileCreateDirInputSchema>;
        return { data: { path: await service.createDir(idOf(req), path, name, req.actor) } };
      },
    );
    app.post(
      `${base}/content-files/upload`,
      {
        config,
        schema: {
          tags,
          params,
          querystring: ContentFilesPathQuerySchema,
          consumes: ['multipart/form-data'],
          response: ok(ContentFilesUploadResultSchema),
        },
      },
      async (req) => {
        if (!req.isMultipart()) {
          throw new AppError(415, 'unsupported_media_type', 'Send the files as multipart/form-data');
        }
        const items = await service.upload(idOf(req), pathOf(req), uploadParts(req), req.actor);
        return { data: { items } };
      },
    );
    app.get(
      `${base}/content-files/download`,
      {
        config,
        schema: {
          tags,
          params,
          querystring: ContentFilesRequiredPathQuerySchema,
          produces: ['application/octet-stream'],
        },
      },
      async (req, reply) => {
        const { stream, size, name } = await service.download(idOf(req), pathOf(req));
        // An ASCII fallback for old clients, and the exact name in RFC 5987 form.
        const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
        reply
          .header('content-type', 'application/octet-stream')
          .header('content-length', String(size))
          .header(
            'content-disposition',
            `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`,
          )
          .header('cache-control', 'no-store')
          .header('x-content-type-options', 'nosniff');
        return reply.send(stream);
      },
    );
  };
