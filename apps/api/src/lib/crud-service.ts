import type { ListQuery, ListResult } from '@fleetdesk/contract';
import type { Database, Executor, Tx } from '../db/client.ts';
import { isUniqueViolation, pgError } from '../db/pg-errors.ts';
import type { Actor } from '../http/context.ts';
import { ConflictError, NotFoundError } from '../http/errors.ts';
import type { AuditService } from '../modules/audit/audit.service.ts';
import type { UsageRegistry } from './usage.ts';

export type CrudRepository<E, I, Q> = {
  list(q: Q, ex?: Executor): Promise<ListResult<E>>;
  findById(id: string, ex?: Executor): Promise<E | undefined>;
  insert(input: I, ex?: Executor): Promise<E>;
  update(id: string, patch: Partial<I>, ex?: Executor): Promise<E | undefined>;
  delete(id: string, ex?: Executor): Promise<boolean>;
};

export type UniqueMessages = Record<string, { field: string; message: string }>;

/**
 * The common service for a resource: audited create, update and delete in one transaction each, 404s,
 * friendly 409s for unique constraints, and the in-use check before delete. Hooks let a resource add
 * cross-row rules without rewriting the flow.
 */
export function createCrudService<E extends { _id: string }, I, Q extends ListQuery>(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  repo: CrudRepository<E, I, Q>;
  /** Plural table-like name used in the audit log and usage registry: 'brands'. */
  entity: string;
  /** Lower-case singular for messages: 'brand'. */
  label: string;
  unique?: UniqueMessages;
  /** Snapshot written to the audit diff (defaults to the entity). */
  snapshot?: (e: E) => Record<string, unknown>;
  beforeCreate?: (input: I, tx: Tx, actor: Actor) => Promise<I | void>;
  beforeUpdate?: (current: E, patch: Partial<I>, tx: Tx, actor: Actor) => Promise<Partial<I> | void>;
  afterWrite?: (e: E, tx: Tx, actor: Actor) => Promise<void>;
}) {
  const { database, audit, usage, repo, entity, label } = deps;
  const snap = deps.snapshot ?? ((e: E) => e as unknown as Record<string, unknown>);
  const notFound = () => new NotFoundError(`${capitalize(label)} not found`);

  const mapUnique = (err: unknown): never => {
    if (isUniqueViolation(err)) {
      const c = pgError(err)?.constraint;
      const u = c ? deps.unique?.[c] : undefined;
      if (u) throw new ConflictError(u.message, { [u.field]: u.message });
    }
    throw err;
  };

  return {
    list: (q: Q) => repo.list(q),
    async get(id: string): Promise<E> {
      return (
        (await repo.findById(id)) ??
        (() => {
          throw notFound();
        })()
      );
    },
    async create(input: I, actor: Actor): Promise<E> {
      return database.db
        .transaction(async (tx) => {
          const prepared = (await deps.beforeCreate?.(input, tx, actor)) ?? input;
          const created = await repo.insert(prepared, tx);
          await deps.afterWrite?.(created, tx, actor);
          await audit.record(
            actor,
            { action: 'create', entity, entityId: created._id, before: null, after: snap(created) },
            tx,
          );
          return created;
        })
        .catch(mapUnique);
    },
    async update(id: string, patch: Partial<I>, actor: Actor): Promise<E> {
      return database.db
        .transaction(async (tx) => {
          const current = await repo.findById(id, tx);
          if (!current) throw notFound();
          const prepared = (await deps.beforeUpdate?.(current, patch, tx, actor)) ?? patch;
          const updated = await repo.update(id, prepared, tx);
          if (!updated) throw notFound();
          await deps.afterWrite?.(updated, tx, actor);
          await audit.record(
            actor,
            { action: 'update', entity, entityId: id, before: snap(current), after: snap(updated) },
            tx,
          );
          return updated;
        })
        .catch(mapUnique);
    },
    async remove(id: string, actor: Actor): Promise<void> {
      await database.db.transaction(async (tx) => {
        const current = await repo.findById(id, tx);
        if (!current) throw notFound();
        await usage.assertUnused(entity, id, label, tx);
        await repo.delete(id, tx);
        await audit.record(actor, { action: 'delete', entity, entityId: id, before: snap(current), after: null }, tx);
      });
    },
  };
}

export const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
