import type { ListQuery, ListResult } from '@fleetdesk/contract';
import type { Database, Executor, Tx } from '../db/client.ts';
import { isUniqueViolation, pgError } from '../db/pg-errors.ts';
import type { Actor } from '../http/context.ts';
import { ConflictError, NotFoundError } from '../http/errors.ts';
import type { AuditRecorder } from './audit-recorder.ts';
import type { UsageRegistry } from './usage.ts';

/** W is what the repository writes (for example with secrets sealed); by default the input itself. */
export type CrudRepository<E, Q, W> = {
  list(q: Q, ex?: Executor): Promise<ListResult<E>>;
  findById(id: string, ex?: Executor): Promise<E | undefined>;
  insert(values: W, ex?: Executor): Promise<string | { _id: string }>;
  update(id: string, values: Partial<W>, ex?: Executor): Promise<unknown>;
  delete(id: string, ex?: Executor): Promise<boolean>;
};

export type UniqueMessages = Record<string, { field: string; message: string }>;

/**
 * The common service for a resource: audited create, update and delete in one transaction each, 404s,
 * friendly 409s for unique constraints, and the in-use check before delete. Hooks carry the rules
 * that differ per resource.
 */
export function createCrudService<E extends { _id: string }, I, Q extends ListQuery, W = Partial<I>>(deps: {
  database: Database;
  audit: AuditRecorder;
  usage: UsageRegistry;
  repo: CrudRepository<E, Q, W>;
  /** Plural name used in the audit log, the usage registry and URLs: 'brands'. */
  entity: string;
  /** Lower-case singular for messages: 'brand'. */
  label: string;
  unique?: UniqueMessages;
  /** Input → what the repository writes (seal secrets, rename fields). Defaults to the input. */
  toWrite?: (input: Partial<I>, current: E | undefined) => Partial<W>;
  /** Cross-row checks that need the database (references exist, capacity, …). */
  validate?: (input: Partial<I>, current: E | undefined, tx: Tx, actor: Actor) => Promise<void>;
  /** What the audit diff compares; defaults to the entity. Return sealed secrets here so changes show (redacted). */
  snapshot?: (id: string, ex: Executor) => Promise<Record<string, unknown> | undefined>;
  afterWrite?: (e: E, tx: Tx, actor: Actor) => Promise<void>;
  /** The audit's snapshot taken from the entity a write reads anyway, instead of reading the row again. */
  snapshotOf?: (e: E) => Record<string, unknown>;
}) {
  const { database, audit, usage, repo, entity, label } = deps;
  const notFound = () => new NotFoundError(`${capitalize(label)} not found`);
  const toWrite = deps.toWrite ?? ((i: Partial<I>) => i as unknown as Partial<W>);
  const snapshot = async (id: string, ex: Executor) =>
    deps.snapshot ? deps.snapshot(id, ex) : ((await repo.findById(id, ex)) as Record<string, unknown> | undefined);

  const mapUnique = (err: unknown): never => {
    if (isUniqueViolation(err)) {
      const c = pgError(err)?.constraint;
      const u = c ? deps.unique?.[c] : undefined;
      if (u) throw new ConflictError(u.message, { [u.field]: u.message });
    }
    throw err;
  };
  const mustFind = async (id: string, ex?: Executor) => (await repo.findById(id, ex)) ?? Promise.reject(notFound());

  return {
    list: (q: Q) => repo.list(q),
    get: (id: string) => mustFind(id),
    async create(input: I, actor: Actor): Promise<E> {
      return database.db
        .transaction(async (tx) => {
          await deps.validate?.(input, undefined, tx, actor);
          const inserted = await repo.insert(toWrite(input, undefined) as W, tx);
          const id = typeof inserted === 'string' ? inserted : inserted._id;
          const created = await mustFind(id, tx);
          await deps.afterWrite?.(created, tx, actor);
          const after = deps.snapshotOf ? deps.snapshotOf(created) : await snapshot(id, tx);
          await audit.record(actor, { action: 'create', entity, entityId: id, before: null, after }, tx);
          return created;
        })
        .catch(mapUnique);
    },
    async update(id: string, patch: Partial<I>, actor: Actor): Promise<E> {
      return database.db
        .transaction(async (tx) => {
          const current = await mustFind(id, tx);
          await deps.validate?.(patch, current, tx, actor);
          const before = deps.snapshotOf ? deps.snapshotOf(current) : await snapshot(id, tx);
          await repo.update(id, toWrite(patch, current), tx);
          const updated = await mustFind(id, tx);
          await deps.afterWrite?.(updated, tx, actor);
          const after = deps.snapshotOf ? deps.snapshotOf(updated) : await snapshot(id, tx);
          await audit.record(actor, { action: 'update', entity, entityId: id, before, after }, tx);
          return updated;
        })
        .catch(mapUnique);
    },
    async remove(id: string, actor: Actor): Promise<void> {
      await database.db.transaction(async (tx) => {
        const before = await snapshot(id, tx);
        if (!before) throw notFound();
        await usage.assertUnused(entity, id, label, tx);
        await repo.delete(id, tx);
        await audit.record(actor, { action: 'delete', entity, entityId: id, before, after: null }, tx);
      });
    },
  };
}

export const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
