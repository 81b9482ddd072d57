/**
 * An API process with job workers for the takeover tests (jobs/takeover.test.ts): the app's own container, short
 * heartbeat and takeover times, and a user `takeover` (password below) the test signs in as. Started again on
 * the same data directory (PGlite) or beside another (PostgreSQL). `node --import tsx takeover-worker.ts`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createContainer } from '../container.ts';
import { hashPassword } from '../lib/passwords.ts';

export const TAKEOVER_USER = { username: 'takeover', password: 'correct horse battery' };
export const TAKEOVER_TIMES = { heartbeatSeconds: 1, takeoverSeconds: 4 };

async function main() {
  const config = { ...loadConfig(process.env, { dotenv: false }), JOB_WORKERS: true };
  const c = await createContainer(config, {
    jobOptions: {
      pollingIntervalSeconds: 0.5,
      maintenanceIntervalSeconds: 1,
      progressThrottleMs: 0,
      ...TAKEOVER_TIMES,
    },
  });
  await c.database.migrate();
  if (!(await c.repos.users.findByUsername(TAKEOVER_USER.username))) {
    try {
      const role = await c.repos.roles.insert({ name: 'takeover', rules: ['cnv'] });
      const user = await c.repos.users.insert({
        username: TAKEOVER_USER.username,
        name: 'Takeover test',
        email: 'takeover@example.test',
        passwordHash: await hashPassword(TAKEOVER_USER.password),
      });
      await c.repos.users.setRoles(user.id, [role.id]);
    } catch {
      // The other process made it first.
    }
  }
  await c.startJobs({ periodic: false });
  const app = await buildApp(c, { logger: false, webDist: null });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`ready ${port} ${c.jobEngine.workerName}\n`);
  process.on('SIGTERM', () => {
    void app.close().finally(() => void c.close().finally(() => process.exit(0)));
  });
}

// Run as a process only (the test imports the constants above).
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]))
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
