import type { SessionUser } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import { generatePassword, hashPassword } from '../../lib/passwords.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { RolesRepository } from '../roles/roles.repository.ts';
import type { UserRow, UsersRepository } from './users.repository.ts';
import { systemActor } from '../../http/context.ts';

export const ADMIN_ROLE_NAME = 'Administrators';

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

export function createUsersService(deps: {
  database: Database;
  users: UsersRepository;
  roles: RolesRepository;
  audit: AuditService;
}) {
  const { database, users, roles, audit } = deps;
  return {
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
