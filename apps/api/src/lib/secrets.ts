import type { FastifyInstance } from 'fastify';
import {
  IdParamsSchema,
  RevealInputSchema,
  RevealResultSchema,
  SECRET_MASK,
  dataOf,
  type Rule,
} from '@fleetdesk/contract';
import type { Database, Executor } from '../db/client.ts';
import type { Actor } from '../http/context.ts';
import { NotFoundError, ValidationError } from '../http/errors.ts';
import type { AuditRecorder } from './audit-recorder.ts';
import type { SecretBox } from './secret-box.ts';

/** What a response carries for a stored secret. */
export const maskOf = (sealed: string | null | undefined) => (sealed ? SECRET_MASK : null);

/** Input → column value: undefined keeps the stored value, null clears it, a string is encrypted. */
export function sealInput(box: SecretBox, value: string | null | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  return box.encrypt(value);
}

/**
 * The audited reveal of one stored secret. `columns` maps each revealable field name to the sealed
 * value in a loaded row.
 */
export function createRevealer<Row>(deps: {
  database: Database;
  audit: AuditRecorder;
  secrets: SecretBox;
  entity: string;
  label: string;
  load: (id: string, ex?: Executor) => Promise<Row | undefined>;
  columns: Record<string, (row: Row) => string | null | undefined>;
}) {
  return async (id: string, field: string, actor: Actor): Promise<{ field: string; value: string | null }> => {
    // Own keys only: `__proto__`, `constructor` or `toString` would otherwise find Object.prototype's members.
    const pick = Object.hasOwn(deps.columns, field) ? deps.columns[field] : undefined;
    if (typeof pick !== 'function') {
      throw new ValidationError(`${field} is not a secret field of a ${deps.label}`, {
        field: `One of: ${Object.keys(deps.columns).join(', ')}`,
      });
    }
    const row = await deps.load(id);
    if (!row) throw new NotFoundError(`${deps.label.charAt(0).toUpperCase()}${deps.label.slice(1)} not found`);
    const sealed = pick(row);
    const value = sealed ? deps.secrets.decrypt(sealed) : null;
    await deps.audit.record(actor, { action: 'reveal', entity: deps.entity, entityId: id, details: { field } });
    return { field, value };
  };
}

/** `POST <path>/:id/reveal` with `{ field }`, under the resource's rule. */
export function mountReveal(
  app: FastifyInstance,
  def: {
    path: string;
    rule: Rule;
    reveal: (id: string, field: string, actor: Actor) => Promise<{ field: string; value: string | null }>;
  },
) {
  app.post(
    `${def.path}/:id/reveal`,
    {
      config: { access: def.rule },
      schema: {
        tags: [def.path.replace(/^\/api\//, '')],
        params: IdParamsSchema,
        body: RevealInputSchema,
        response: { 200: dataOf(RevealResultSchema) },
      },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      const { field } = req.body as { field: string };
      return { data: await def.reveal(id, field, req.actor) };
    },
  );
}
