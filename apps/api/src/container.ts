import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/client.ts';
import { loadAppKey, createSecretBox } from './lib/secret-box.ts';
import { createUsageRegistry } from './lib/usage.ts';
import { createAuditRepository } from './modules/audit/audit.repository.ts';
import { createAuditService } from './modules/audit/audit.service.ts';
import { createAuthRepository } from './modules/auth/auth.repository.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { createLoginThrottle } from './modules/auth/login-throttle.ts';
import { createBrandsRepository } from './modules/brands/brands.repository.ts';
import { createBrandsService } from './modules/brands/brands.service.ts';
import { createRegionsRepository } from './modules/regions/regions.repository.ts';
import { createRegionsService } from './modules/regions/regions.service.ts';
import { createRolesRepository } from './modules/roles/roles.repository.ts';
import { createUsersRepository } from './modules/users/users.repository.ts';
import { createUsersService } from './modules/users/users.service.ts';

/** The one composition root: database, then repositories, integrations, services. */
export async function createContainer(config: Config, opts: { database?: Database } = {}) {
  const database =
    opts.database ?? (await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: `${config.DATA_DIR}/pgdata` }));
  const { db } = database;
  const secrets = createSecretBox(loadAppKey({ secret: config.APP_SECRET_KEY, dataDir: config.DATA_DIR }));
  const usage = createUsageRegistry();

  const repos = {
    audit: createAuditRepository(db),
    auth: createAuthRepository(db),
    users: createUsersRepository(db),
    roles: createRolesRepository(db),
    brands: createBrandsRepository(db),
    regions: createRegionsRepository(db),
  };

  const audit = createAuditService({ repo: repos.audit });
  const throttle = createLoginThrottle({
    maxFailures: config.LOGIN_MAX_FAILURES,
    lockMs: config.LOGIN_LOCK_MINUTES * 60_000,
  });
  const services = {
    audit,
    auth: createAuthService({
      database,
      repo: repos.auth,
      users: repos.users,
      audit,
      throttle,
      policy: { ttlMs: config.SESSION_TTL_HOURS * 3_600_000, idleMs: config.SESSION_IDLE_MINUTES * 60_000 },
    }),
    users: createUsersService({ database, users: repos.users, roles: repos.roles, audit }),
    brands: createBrandsService({ database, audit, usage, repo: repos.brands }),
    regions: createRegionsService({ database, audit, usage, repo: repos.regions }),
  };

  return {
    config,
    database,
    secrets,
    usage,
    repos,
    services,
    async close() {
      await database.close();
    },
  };
}
export type Container = Awaited<ReturnType<typeof createContainer>>;
