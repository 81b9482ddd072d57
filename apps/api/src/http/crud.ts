import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  IdParamsSchema,
  ListQuerySchema,
  PICKER_FIELDS,
  PICKER_READERS,
  dataOf,
  hasRule,
  listOf,
  type ListResult,
  type Rule,
} from '@fleetdesk/contract';
import type { Actor } from './context.ts';
import { writerFor } from './serializer.ts';

export type CrudService<E, I, Q> = {
  list(q: Q, actor: Actor): Promise<ListResult<E>>;
  get(id: string, actor: Actor): Promise<E>;
  create(input: I, actor: Actor): Promise<E>;
  update(id: string, input: Partial<I>, actor: Actor): Promise<E>;
  remove(id: string, actor: Actor): Promise<void>;
};

/**
 * Mounts list, get, create, update (PATCH and PUT, both partial) and delete for one resource, with the same
 * paging, status codes, OpenAPI tags and permission on every resource. A resource adds its own actions after.
 */
export function mountCrud<
  E extends z.ZodObject,
  I extends z.ZodObject,
  Q extends z.ZodObject = typeof ListQuerySchema,
  UI extends z.ZodObject = I,
>(
  app: FastifyInstance,
  def: {
    path: string;
    rule: Rule;
    entity: E;
    input: I;
    /** The update schema; defaults to the partial create schema. */
    updateInput?: UI;
    listQuery?: Q;
    /** A lighter item the list answers with when its query asks for it (the domains list's `view=list`). */
    listItem?: { schema: z.ZodObject; asked: (query: z.infer<Q>) => boolean };
    service: CrudService<z.infer<E>, z.infer<I>, z.infer<Q>> & {
      update(id: string, input: Partial<z.infer<UI>>, actor: Actor): Promise<z.infer<E>>;
    };
  },
) {
  // Generic over the resource's schemas, so the handlers cast what the schemas have already validated.
  const r = app;
  const tag = def.path.replace(/^\/api\//, '');
  const config = { access: def.rule };
  // Reads also serve the pickers of other areas' forms (see PICKER_READERS).
  const readers = PICKER_READERS[def.rule] ?? [];
  const readConfig = { access: [def.rule, ...readers] };
  const listQuery = (def.listQuery ?? ListQuerySchema) as Q;
  const updateInput = (def.updateInput ?? def.input.partial()) as z.ZodObject;
  const one = dataOf(def.entity);

  // A picker reader (a rule in PICKER_READERS, not the area's own) gets the slim projection only.
  const slimFields = PICKER_FIELDS[tag];
  if (readers.length && !slimFields) throw new Error(`${def.path} has picker readers but no PICKER_FIELDS entry`);
  const mask = Object.fromEntries((slimFields ?? []).map((k) => [k, true as const]));
  const slim = def.entity.pick(mask as never) as z.ZodObject;
  const slimOnly = (actor: Actor) => readers.length > 0 && !hasRule(actor.rules, def.rule);
  const project = <T extends object>(item: T) =>
    Object.fromEntries(Object.entries(item).filter(([k]) => mask[k])) as Partial<T>;

  // A route that answers in more than one shape (a picker reader's projection, a list item view) writes each
  // shape with its own writer, chosen by the handler: the schema's anyOf would check every answer against each
  // shape first, and fall back to zod's slow writer for a shape it wrongly rejects.
  const route = { method: 'GET', url: def.path };
  const shaped = readers.length > 0 || def.listItem !== undefined;
  const listWriters = {
    entity: writerFor(listOf(def.entity), route),
    slim: writerFor(listOf(slim), route),
    item: def.listItem && writerFor(listOf(def.listItem.schema), route),
  };
  const itemWriters = { entity: writerFor(one, route), slim: writerFor(dataOf(slim), route) };
  r.get(
    def.path,
    {
      config: readConfig,
      schema: {
        tags: [tag],
        querystring: listQuery,
        response: {
          200:
            readers.length || def.listItem
              ? z.union([
                  listOf(def.entity),
                  ...(readers.length ? [listOf(slim)] : []),
                  ...(def.listItem ? [listOf(def.listItem.schema)] : []),
                ])
              : listOf(def.entity),
        },
      },
    },
    async (req, reply) => {
      const query = req.query as z.infer<Q>;
      const list = await def.service.list(query, req.actor);
      const slimmed = slimOnly(req.actor);
      if (shaped) {
        const asItems = listWriters.item && def.listItem!.asked(query) ? listWriters.item : listWriters.entity;
        reply.serializer(slimmed ? listWriters.slim : asItems);
      }
      return { data: slimmed ? { ...list, items: list.items.map(project) } : list };
    },
  );
  r.get(
    `${def.path}/:id`,
    {
      config: readConfig,
      schema: {
        tags: [tag],
        params: IdParamsSchema,
        response: { 200: readers.length ? z.union([one, dataOf(slim)]) : one },
      },
    },
    async (req, reply) => {
      const item = await def.service.get((req.params as { id: string }).id, req.actor);
      const slimmed = slimOnly(req.actor);
      if (readers.length) reply.serializer(slimmed ? itemWriters.slim : itemWriters.entity);
      return { data: slimmed ? project(item) : item };
    },
  );
  r.post(def.path, { config, schema: { tags: [tag], body: def.input, response: { 201: one } } }, async (req, reply) => {
    const created = await def.service.create(req.body as z.infer<I>, req.actor);
    return reply.status(201).send({ data: created });
  });
  for (const method of ['PATCH', 'PUT'] as const) {
    r.route({
      method,
      url: `${def.path}/:id`,
      config,
      schema: { tags: [tag], params: IdParamsSchema, body: updateInput, response: { 200: one } },
      handler: async (req) => ({
        data: await def.service.update((req.params as { id: string }).id, req.body as Partial<z.infer<UI>>, req.actor),
      }),
    });
  }
  r.delete(
    `${def.path}/:id`,
    {
      config,
      schema: { tags: [tag], params: IdParamsSchema, response: { 200: dataOf(z.object({ _id: z.string() })) } },
    },
    async (req) => {
      await def.service.remove((req.params as { id: string }).id, req.actor);
      return { data: { _id: (req.params as { id: string }).id } };
    },
  );
}
