import { ADMIN_RULE, type ListQuery, type Role, type RoleInput } from '@fleetdesk/contract';
import type { Database, Executor, Tx } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { ConflictError, NotFoundError } from '../../http/errors.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import { sessionsChanged } from '../../lib/session-cache.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { assertHoldsAll } from '../users/users.service.ts';
import type { RolesRepository, RoleValues } from './roles.repository.ts';

export const ROLE_MESSAGES = {
  notFound: 'Role not found',
  duplicate: 'A role with this name already exists',
  heldBy: (n: number) => `This role is held by ${n} user${n === 1 ? '' : 's'}`,
};

/** What the roles service needs from the users service: who holds a role, and the last-admin guard. */
export type RoleHolders = {
  countHolders(roleId: string, ex?: Executor): Promise<{ all: number; active: number }>;
  assertRoleMayDropAdmin(roleId: string, tx: Tx): Promise<void>;
};

export function createRolesService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  repo: RolesRepository;
  holders: RoleHolders;
}) {
  const { database, audit, usage, repo, holders } = deps;
  const crud = createCrudService<Role, RoleInput, ListQuery, RoleValues>({
    database,
    audit,
    usage,
    repo: { ...repo, insert: async (v, ex) => (await repo.insert(v, ex)).id },
    entity: 'roles',
    label: 'role',
    unique: { roles_name_lower_uq: { field: 'name', message: ROLE_MESSAGES.duplicate } },
    snapshot: async (id, ex) => {
      const r = await repo.findById(id, ex);
      return (
        r && {
          name: r.name,
          rules: r.rules,
          requireTwoFactor: r.requireTwoFactor,
          tokensWithoutExpiry: r.tokensWithoutExpiry,
        }
      );
    },
    validate: async (input, current, tx, actor) => {
      if (current?.rules.includes(ADMIN_RULE) && input.rules && !input.rules.includes(ADMIN_RULE)) {
        await holders.assertRoleMayDropAdmin(current._id, tx);
      }
      assertHoldsAll(actor, current?.rules ?? [], 'change this role', 'change a role holding it');
      assertHoldsAll(actor, input.rules ?? [], 'grant these rules', 'grant it');
    },
  });

  return {
    ...crud,
    /** A role's rules are part of every session of its holders: sessions served from memory are checked again. */
    update: (id: string, patch: Partial<RoleInput>, actor: Actor) =>
      crud.update(id, patch, actor).finally(() => sessionsChanged(database)),
    /** Refused while any user holds the role, saying how many do. */
    async remove(id: string, actor: Actor): Promise<void> {
      await database.db.transaction(async (tx) => {
        const current = await repo.findById(id, tx);
        if (!current) throw new NotFoundError(ROLE_MESSAGES.notFound);
        const { all } = await holders.countHolders(id, tx);
        if (all > 0) throw new ConflictError(ROLE_MESSAGES.heldBy(all), undefined, 'in_use');
        assertHoldsAll(actor, current.rules, 'delete this role', 'delete a role holding it');
        await usage.assertUnused('roles', id, 'role', tx);
        await repo.delete(id, tx);
        await audit.record(
          actor,
          {
            action: 'delete',
            entity: 'roles',
            entityId: id,
            before: { name: current.name, rules: current.rules },
            after: null,
          },
          tx,
        );
      });
    },
  };
}
export type RolesService = ReturnType<typeof createRolesService>;
