import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError } from './errors.ts';
import {
  isConnectionError,
  isDataException,
  isForeignKeyViolation,
  isUniqueViolation,
  pgError,
} from '../db/pg-errors.ts';

/** Seconds a client is told to wait after the database connection was lost under its request. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

type Envelope = { message: string; code: string; fields?: Record<string, string>; requestId: string };

function fieldName(path: readonly PropertyKey[] | string | undefined): string {
  if (typeof path === 'string') return path.replace(/^[./]+/, '').replace(/\//g, '.');
  return (path ?? []).map(String).join('.');
}

/** A field's key in words, as the forms name it: "domainName" → "Domain name", "records.0.serverId" → "Server". */
export function fieldWords(key: string): string {
  const last =
    key
      .split('.')
      .filter((k) => k && !/^\d+$/.test(k))
      .pop() ?? key;
  const words = last
    .replace(/(Id|Ids|No)$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => (/^[A-Z]{2,}$/.test(w) ? w : w.toLowerCase()))
    .join(' ');
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'Value';
}

/** A field's message that names its field (issue 47): never the key, the field's words only when it lacks them. */
export function fieldSentence(key: string, message: string): string {
  const words = fieldWords(key);
  return message.toLowerCase().includes(words.toLowerCase()) ? message : `${words}: ${message}`;
}

type ErrorFields = { name?: unknown; message?: unknown; code?: unknown; stack?: unknown; cause?: unknown };

/**
 * An error as it may be logged. A failed query carries its parameters (password hashes, sealed secrets, personal
 * data) in `params` and at the end of its message, and PostgreSQL may quote a value back in its own message:
 * the log keeps the query text, the error and its code, and every parameter value is cut out.
 */
export function loggableError(err: unknown): Record<string, unknown> {
  const params: string[] = [];
  for (let e = err as ErrorFields & { params?: unknown }, i = 0; e && typeof e === 'object' && i < 5; i++) {
    if (Array.isArray(e.params)) {
      for (const p of e.params) {
        const text =
          p instanceof Date ? p.toISOString() : typeof p === 'object' && p ? JSON.stringify(p) : String(p ?? '');
        if (text.length >= 2) params.push(text);
      }
    }
    e = e.cause as typeof e;
  }
  // Longest first, so a parameter that contains another is cut out whole.
  params.sort((a, b) => b.length - a.length);
  const scrub = (v: unknown): string | undefined => {
    if (typeof v !== 'string') return undefined;
    let out = v.replace(/\nparams: [\s\S]*?(?=\n\s+at |$)/, '\nparams: [redacted]');
    for (const p of params) out = out.split(p).join('[param]');
    return out;
  };
  const one = (e: ErrorFields & { query?: unknown }, depth: number): Record<string, unknown> => {
    const pg = e as { severity?: unknown; constraint?: unknown; table?: unknown; column?: unknown; routine?: unknown };
    const out: Record<string, unknown> = {
      type: typeof e.name === 'string' ? e.name : typeof e,
      message: scrub(e.message),
      ...(e.code !== undefined ? { code: String(e.code) } : {}),
      ...(typeof e.query === 'string' ? { query: e.query } : {}),
      ...(pg.severity ? { severity: pg.severity } : {}),
      ...(pg.constraint ? { constraint: pg.constraint } : {}),
      ...(pg.table ? { table: pg.table } : {}),
      ...(pg.column ? { column: pg.column } : {}),
      ...(pg.routine ? { routine: pg.routine } : {}),
      stack: scrub(e.stack),
    };
    // `detail` and `where` are left out on purpose: they quote row values ("Key (email)=(…) already exists").
    if (e.cause && typeof e.cause === 'object' && depth < 4) out.cause = one(e.cause as ErrorFields, depth + 1);
    return out;
  };
  if (!err || typeof err !== 'object') return { type: typeof err, message: scrub(String(err)) };
  return one(err as ErrorFields, 0);
}

export function installErrorHandler(
  app: FastifyInstance,
  opts: { fallback?: (req: FastifyRequest, reply: FastifyReply) => unknown } = {},
) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const requestId = String(req.id);
    const send = (status: number, body: Omit<Envelope, 'requestId'>, headers?: Record<string, string>) => {
      if (headers) reply.headers(headers);
      return reply.status(status).send({ ...body, requestId });
    };

    if (err instanceof AppError) {
      if (err.status >= 500) req.log.warn({ err: { message: err.message, code: err.code } }, 'upstream failure');
      return send(
        err.status,
        {
          ...(err.envelope ?? {}),
          message: err.message,
          code: err.code,
          ...(err.fields ? { fields: err.fields } : {}),
        },
        err.headers,
      );
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const fields: Record<string, string> = {};
      for (const v of err.validation) {
        const params = v.params as { issue?: { path?: PropertyKey[] } };
        const name = fieldName(params.issue?.path ?? v.instancePath) || 'body';
        fields[name] ??= v.message ?? 'Invalid value';
      }
      const where = err.validationContext ?? 'body';
      const first = Object.entries(fields)[0];
      const message =
        where === 'body'
          ? Object.keys(fields).length === 1 && first
            ? fieldSentence(first[0], first[1])
            : 'Some fields are invalid'
          : `Invalid ${where === 'querystring' ? 'query' : where}: ${Object.entries(fields)
              .map(([k, m]) => fieldSentence(k, m))
              .join('; ')}`;
      return send(400, { message, code: 'validation_error', fields });
    }
    if (isResponseSerializationError(err)) {
      req.log.error({ err: { message: err.message } }, 'response did not match its schema');
      return send(500, { message: 'Something went wrong', code: 'internal_error' });
    }
    if (isUniqueViolation(err))
      return send(409, { message: 'This conflicts with an existing record', code: 'conflict' });
    if (isForeignKeyViolation(err))
      return send(409, { message: 'This record is referenced by other records', code: 'in_use' });
    if (isDataException(err)) {
      // The SQLSTATE only: the driver's message may quote the offending value.
      req.log.warn({ sqlstate: pgError(err)?.code }, 'input refused by the database');
      return send(400, { message: 'The request holds a value that cannot be stored', code: 'invalid_value' });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own client errors: bad JSON, body too large, unsupported media type, …
      const code = err.code
        ? String(err.code)
            .toLowerCase()
            .replace(/^fst_err_/, '')
        : 'bad_request';
      const message = err.statusCode === 429 ? err.message : err.message.replace(/^FST_\w+:\s*/, '');
      return send(err.statusCode, { message, code });
    }
    if (isConnectionError(err)) {
      // The statement's connection was cut (PostgreSQL restarted, failed over, a network blip): a read was already
      // sent again once (db/client.ts); this one may or may not have been applied, so the client decides.
      req.log.warn({ err: { message: err.message, code: pgError(err)?.code } }, 'database connection lost');
      return send(
        503,
        { message: 'The database connection was lost; try again in a moment', code: 'database_unavailable' },
        { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
      );
    }
    req.log.error({ err: loggableError(err) }, 'unhandled error');
    return send(500, { message: 'Something went wrong', code: 'internal_error' });
  });

  app.setNotFoundHandler((req, reply) => {
    if (opts.fallback) {
      const handled = opts.fallback(req, reply);
      if (handled) return handled;
    }
    return reply.status(404).send({
      message: `No route for ${req.method} ${req.url.split('?')[0]}`,
      code: 'not_found',
      requestId: String(req.id),
    });
  });
}
