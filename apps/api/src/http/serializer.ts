import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type Json = Record<string, unknown>;

/** Keywords that only validate: the writer does not need them, and the branch choice of an anyOf should not hang on them. */
const VALIDATION_ONLY = ['format', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems'];

/**
 * Prepares a JSON Schema node for fast-json-stringify: validation-only keywords go, and
 * `anyOf: [X, {type: 'null'}]` (zod's nullable) becomes X with `nullable: true`, which the writer handles
 * inline (a real anyOf makes it test each branch against the value).
 */
function simplify(node: unknown): unknown {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
  const out: Json = { ...(node as Json) };
  for (const k of VALIDATION_ONLY) delete out[k];
  for (const k of ['properties', '$defs', 'definitions'] as const) {
    if (out[k] && typeof out[k] === 'object') {
      out[k] = Object.fromEntries(Object.entries(out[k] as Json).map(([name, v]) => [name, simplify(v)]));
    }
  }
  for (const k of ['items', 'additionalProperties', 'not'] as const) if (out[k]) out[k] = simplify(out[k]);
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(out[k])) out[k] = (out[k] as unknown[]).map(simplify);
  }
  const any = out.anyOf as Json[] | undefined;
  if (Array.isArray(any) && any.length === 2) {
    const i = any.findIndex((b) => b.type === 'null' && Object.keys(b).length === 1);
    if (i >= 0) {
      const other = any[1 - i]!;
      delete out.anyOf;
      return { ...out, ...other, nullable: true };
    }
  }
  return out;
}

/** A compiled writer for a response schema, or null when the schema cannot be written as JSON Schema. */
export function compileResponse(schema: z.ZodType): ((data: unknown) => string) | null {
  let json: Json;
  try {
    json = z.toJSONSchema(schema, { io: 'output', target: 'draft-7', unrepresentable: 'throw' }) as Json;
  } catch {
    return null;
  }
  delete json.$schema;
  return fastJson(simplify(json) as Parameters<typeof fastJson>[0]);
}

/**
 * Responses written by a function compiled from each route's zod schema (fast-json-stringify), instead of
 * checking every item with zod and then JSON.stringify (issue 15: several times faster on a page of 20 domains).
 * Only the schema's properties are written, so a field a schema does not name (a secret) never leaves. A
 * schema that JSON Schema cannot express (a transform) keeps zod's serializer. Compiled on first use, so
 * start-up does not pay for routes never called.
 */
export const serializerCompiler: FastifySerializerCompiler<z.ZodType> = (route) => writerFor(route.schema, route);

/**
 * The writer serializerCompiler makes for a schema, for a route that picks its answer's schema per request
 * (reply.serializer): an anyOf of two shapes is written only after checking the answer against each in turn.
 */
export function writerFor(schema: z.ZodType, route: { method: string; url: string; httpStatus?: string }) {
  const fallback = zodSerializerCompiler({ ...route, schema } as Parameters<typeof zodSerializerCompiler>[0]);
  let compiled: ((data: unknown) => string) | null | undefined;
  const write = (data: unknown) => {
    if (compiled === undefined) compiled = compileResponse(schema);
    if (!compiled) return fallback(data);
    try {
      return compiled(data);
    } catch {
      // Data the compiled writer cannot place: zod decides (and answers a clear 500 if it is really wrong).
      return fallback(data);
    }
  };
  // A frozen answer (a kept list page, frozen by its owner) never changes: its text is written once per route.
  const written = new WeakMap<object, string>();
  return (data: unknown) => {
    const inner = frozenEnvelope(data);
    if (!inner) return write(data);
    let text = written.get(inner);
    if (text === undefined) written.set(inner, (text = write(data)));
    return text;
  };
}

/** The answer inside `{ data }` when that envelope holds nothing else and the answer is frozen. */
function frozenEnvelope(data: unknown): object | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const inner = (data as { data?: unknown }).data;
  if (!inner || typeof inner !== 'object' || !Object.isFrozen(inner)) return undefined;
  for (const k in data) if (k !== 'data') return undefined;
  return inner;
}

/** Freezes an answer and everything in it, so that it can be kept, shared and written once (see above). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
