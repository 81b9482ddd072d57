import {
  ADMIN_RULE,
  RULE_LABELS,
  type ListQuery,
  type ListResult,
  type SessionUser,
  type User,
  type UserInput,
  type UserUpdateInput,
} from '@fleetdesk/contract';
import type { Database, Executor, Tx } from '../../db/client.ts';
import { isUniqueViolation, pgError } from '../../db/pg-errors.ts';
import { systemActor, type Actor } from '../../http/context.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.ts';
import { generatePassword, hashPassword } from '../../lib/passwords.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import { sessionsChanged } from '../../lib/session-cache.ts';
import type { ApiTokensRepository } from '../api-tokens/api-tokens.repository.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { AuthRepository } from '../auth/auth.repository.ts';
import type { RolesRepository } from '../roles/roles.repository.ts';
import type { UserRow, UsersRepository, UserWithRoles } from './users.repository.ts';

export const ADMIN_ROLE_NAME = 'Administrators';

const ADMIN_LABEL = `the ${RULE_LABELS[ADMIN_RULE]} rule (${ADMIN_RULE})`;
export const USER_MESSAGES = {
  notFound: 'User not found',
  duplicate: 'A user with this username already exists',
  deleteSelf: 'You cannot delete your own account',
  deactivateSelf: 'You cannot deactivate your own account',
  deleteLastAdmin: `You cannot delete the last active user holding ${ADMIN_LABEL}`,
  deactivateLastAdmin: `You cannot deactivate the last active user holding ${ADMIN_LABEL}`,
  dropLastAdmin: `This change would take ${ADMIN_LABEL} from the last active user holding it`,
};

export const toSessionUser = (u: UserRow): SessionUser => ({
  _id: u.id,
  userNo: u.userNo,
  username: u.username,
  name: u.name,
  email: u.email,
  status: u.status,
  dateCreated: u.dateCreated.toISOString(),
  dateLastLogin: u.dateLastLogin?.toISOString() ?? null,
});

export const toUser = (u: UserWithRoles): User => ({ ...toSessionUser(u), userRoles: u.userRoles });

/** What the audit log keeps. The hash sits under `password`, a secret name, so a change shows as [redacted]. */
const snapshot = (u: UserWithRoles) => ({
  username: u.username,
  name: u.name,
  email: u.email,
  status: u.status,
  roles: u.userRoles.map((r) => r.role.name),
  password: u.passwordHash,
});

/**
 * Only a holder of `cnv` may hand `cnv` out, or manage someone who holds it: otherwise a holder of
 * cnv:users or cnv:roles could make themselves an administrator, or take over one by setting a password.
 */
export function assertMayTouchAdmin(actor: Actor, rules: readonly string[], what: string) {
  if (rules.includes(ADMIN_RULE) && !actor.rules.includes(ADMIN_RULE)) {
    throw new ForbiddenError(`Only a user holding ${ADMIN_LABEL} can ${what}`);
  }
}

/** Of `rules`, those the actor does not hold (`cnv` holds every rule). */
export const rulesNotHeld = (actor: Actor, rules: readonly string[]) =>
  actor.rules.includes(ADMIN_RULE) ? [] : [...new Set(rules)].filter((r) => !actor.rules.includes(r));

/**
 * The subset rule (docs/decisions/017): a user may grant only rules they hold themselves, and may manage
 * only users (or roles) whose rules are a subset of their own. Otherwise a holder of cnv:users could give
 * itself any role, and a holder of cnv:roles could make a role with every rule. `cnv` keeps its own message.
 */
export function assertHoldsAll(actor: Actor, rules: readonly string[], what: string, adminWhat: string) {
  assertMayTouchAdmin(actor, rules, adminWhat);
  const missing = rulesNotHeld(actor, rules);
  if (missing.length) {
    throw new ForbiddenError(
      `You cannot ${what}: it needs rules you do not hold yourself (${missing.map((r) => RULE_LABELS[r as keyof typeof RULE_LABELS] ?? r).join(', ')})`,
    );
  }
}

export function createUsersService(deps: {
  database: Database;
  users: UsersRepository;
  roles: RolesRepository;
  /** Ends a user's sessions when they are deactivated or their password changes. */
  sessions: Pick<AuthRepository, 'revokeAllForUser'>;
  /** Revokes a user's API tokens when an administrator sets their password (issue 42). */
  tokens: Pick<ApiTokensRepository, 'revokeAllForUser'>;
  audit: AuditService;
  usage?: UsageRegistry;
}) {
  const { database, users, roles, sessions, audit } = deps;
  const notFound = () => new NotFoundError(USER_MESSAGES.notFound);
  const mapUnique = (err: unknown): never => {
    if (isUniqueViolation(err) && pgError(err)?.constraint === 'users_username_lower_uq') {
      throw new ConflictError(USER_MESSAGES.duplicate, { username: USER_MESSAGES.duplicate });
    }
    throw err;
  };

  /** The roles behind the ids, refusing unknown ids with a field error on `roles`. */
  async function loadRoles(ids: string[], ex: Executor) {
    const found = await roles.findByIds(ids, ex);
    const missing = ids.filter((id) => !found.some((r) => r._id === id));
    if (missing.length) {
      const message = `Unknown role${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`;
      throw new ValidationError(message, { roles: message });
    }
    return found;
  }

  const isAdmin = (status: string, rules: string[]) => status === 'active' && rules.includes(ADMIN_RULE);

  async function mustFind(id: string, ex: Executor) {
    return (
      (await users.findWithRoles(id, ex)) ??
      (() => {
        throw notFound();
      })()
    );
  }

  return {
    async list(q: ListQuery): Promise<ListResult<User>> {
      const r = await users.list(q);
      return { items: r.items.map(toUser), itemsCount: r.itemsCount };
    },

    async get(id: string): Promise<User> {
      return toUser(await mustFind(id, database.db));
    },

    async create(input: UserInput, actor: Actor): Promise<User> {
      const passwordHash = await hashPassword(input.password);
      return database.db
        .transaction(async (tx) => {
          const granted = await loadRoles(input.roles, tx);
          assertHoldsAll(
            actor,
            granted.flatMap((r) => r.rules),
            'give these roles',
            'give a role holding it',
          );
          const row = await users.insert(
            { username: input.username, name: input.name, email: input.email, passwordHash, status: input.status },
            tx,
          );
          await users.setRoles(row.id, input.roles, tx);
          const created = await mustFind(row.id, tx);
          await audit.record(
            actor,
            { action: 'create', entity: 'users', entityId: row.id, before: null, after: snapshot(created) },
            tx,
          );
          return toUser(created);
        })
        .catch(mapUnique);
    },

    async update(id: string, patch: UserUpdateInput, actor: Actor): Promise<User> {
      const passwordHash = patch.password === undefined ? undefined : await hashPassword(patch.password);
      return (
        database.db
          .transaction(async (tx) => {
            const mayDropAdmin = patch.status !== undefined || patch.roles !== undefined;
            if (mayDropAdmin) await users.lockAdminGuard(tx);
            const current = await mustFind(id, tx);
            const rulesBefore = await users.rulesOf(id, tx);
            const next = patch.roles === undefined ? undefined : await loadRoles(patch.roles, tx);
            const rulesAfter = next ? [...new Set(next.flatMap((r) => r.rules))] : rulesBefore;
            const statusAfter = patch.status ?? current.status;
            if (isAdmin(current.status, rulesBefore) && !isAdmin(statusAfter, rulesAfter)) {
              if ((await users.countActiveAdmins({ exceptUserId: id }, tx)) === 0) {
                throw new ConflictError(
                  statusAfter !== 'active' ? USER_MESSAGES.deactivateLastAdmin : USER_MESSAGES.dropLastAdmin,
                  undefined,
                  'last_admin',
                );
              }
            }
            if (actor.userId === id && current.status === 'active' && statusAfter !== 'active') {
              throw new ConflictError(USER_MESSAGES.deactivateSelf, undefined, 'self_deactivate');
            }
            assertHoldsAll(actor, rulesBefore, 'change this user', 'change a user holding it');
            if (next) assertHoldsAll(actor, rulesAfter, 'give these roles', 'give a role holding it');
            await users.update(
              id,
              { username: patch.username, name: patch.name, email: patch.email, status: patch.status, passwordHash },
              tx,
            );
            if (patch.roles !== undefined) await users.setRoles(id, patch.roles, tx);
            const deactivated = current.status === 'active' && statusAfter !== 'active';
            if (deactivated || passwordHash !== undefined) await sessions.revokeAllForUser(id, tx);
            // A new password ends the tokens too: whoever made them may have had the old one.
            const apiTokensRevoked = passwordHash !== undefined ? await deps.tokens.revokeAllForUser(id, tx) : 0;
            const updated = await mustFind(id, tx);
            await audit.record(
              actor,
              {
                action: 'update',
                entity: 'users',
                entityId: id,
                before: snapshot(current),
                after: snapshot(updated),
                ...(apiTokensRevoked ? { details: { apiTokensRevoked } } : {}),
              },
              tx,
            );
            return toUser(updated);
          })
          .catch(mapUnique)
          // Sessions served from memory are checked again on the next request (status, password, roles).
          .finally(() => sessionsChanged(database))
      );
    },

    async remove(id: string, actor: Actor): Promise<void> {
      if (actor.userId === id) throw new ConflictError(USER_MESSAGES.deleteSelf, undefined, 'self_delete');
      await database.db
        .transaction(async (tx) => {
          await users.lockAdminGuard(tx);
          const current = await mustFind(id, tx);
          const rules = await users.rulesOf(id, tx);
          if (isAdmin(current.status, rules) && (await users.countActiveAdmins({ exceptUserId: id }, tx)) === 0) {
            throw new ConflictError(USER_MESSAGES.deleteLastAdmin, undefined, 'last_admin');
          }
          assertHoldsAll(actor, rules, 'delete this user', 'delete a user holding it');
          await deps.usage?.assertUnused('users', id, 'user', tx);
          await users.delete(id, tx);
          await audit.record(
            actor,
            { action: 'delete', entity: 'users', entityId: id, before: snapshot(current), after: null },
            tx,
          );
        })
        .finally(() => sessionsChanged(database));
    },

    /** For the roles service: how many users hold a role. */
    countHolders: (roleId: string, ex?: Executor) => users.countHolders(roleId, ex),

    /**
     * For the roles service, before a role loses `cnv`: refuses when that would leave no active user holding it.
     * Call inside the role's transaction.
     */
    async assertRoleMayDropAdmin(roleId: string, tx: Tx) {
      await users.lockAdminGuard(tx);
      const { active } = await users.countHolders(roleId, tx);
      if (active > 0 && (await users.countActiveAdmins({ exceptRoleId: roleId }, tx)) === 0) {
        throw new ConflictError(USER_MESSAGES.dropLastAdmin, undefined, 'last_admin');
      }
    },

    /**
     * When no user exists, create `username` with the role "Administrators" (rule cnv).
     * Returns the generated password when none was given, so the caller can print it once.
     */
    async ensureAdmin(opts: { username: string; password?: string }): Promise<{ created: boolean; password?: string }> {
      if ((await users.count()) > 0) return { created: false };
      const password = opts.password ?? generatePassword();
      const passwordHash = await hashPassword(password);
      await database.db.transaction(async (tx) => {
        const role =
          (await roles.findByName(ADMIN_ROLE_NAME, tx)) ??
          (await roles.insert({ name: ADMIN_ROLE_NAME, rules: ['cnv'] }, tx));
        const user = await users.insert(
          { username: opts.username, name: 'Administrator', email: `${opts.username}@localhost`, passwordHash },
          tx,
        );
        await users.setRoles(user.id, [role.id], tx);
        await audit.record(
          systemActor('bootstrap'),
          {
            action: 'create',
            entity: 'users',
            entityId: user.id,
            after: { ...toSessionUser(user), roles: [ADMIN_ROLE_NAME] },
          },
          tx,
        );
      });
      return { created: true, password: opts.password ? undefined : password };
    },
  };
}
export type UsersService = ReturnType<typeof createUsersService>;
