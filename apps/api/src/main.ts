import { loadConfig, ConfigError, type Config } from './config.ts';
import { createContainer } from './container.ts';
import { buildApp } from './app.ts';
import { installGracefulShutdown } from './lib/shutdown.ts';
import { setProviderCallLogger } from './integrations/provider-calls.ts';
import { refuseWrongAppKey } from './lib/app-key-check.ts';
import { connectionLossLogger } from './db/client.ts';
import { survivesConnectionLoss } from './db/pg-errors.ts';

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }

  // Loaded only in demo mode, so a production install (the container image) runs without the simulators.
  const demo = config.DEMO ? await (await import('./demo/index.ts')).startDemo(config) : undefined;
  if (demo) config = demo.config;
  // The embedded database's worker thread died: every statement would fail from here on, so the process exits
  // non-zero for its supervisor to restart it (jobs are durable; a restart recovers them).
  // A lost PostgreSQL connection is logged (through the server's logger once there is one) and replaced; the
  // process never exits for it (README, decision 063).
  let warn = (obj: object, msg: string) => console.warn(msg, obj);
  survivesConnectionLoss((o, m) => warn(o, m));
  const c = await createContainer(config, {
    onDatabaseConnectionLost: connectionLossLogger((o, m) => warn(o, m)),
    onDatabaseFailure: (err) => {
      console.error(`Fleetdesk: the embedded database stopped (${err.message}); exiting.`);
      process.exit(1);
    },
  });
  await c.database.migrate();
  await refuseWrongAppKey(c);
  const app = await buildApp(c);
  const log = app.log;
  warn = (o, m) => log.warn(o, m);
  // Every provider call is logged once, at info, through the server's logger (redaction included).
  setProviderCallLogger(log);

  if (demo) {
    log.warn('DEMO MODE: sample data and simulated providers; log in as admin / admin. Do not use for real work.');
    await demo.prepare(c, log);
  } else {
    const admin = await c.services.users.ensureAdmin({
      username: config.ADMIN_USERNAME,
      password: config.ADMIN_PASSWORD,
    });
    if (admin.created && admin.password) {
      // Printed once, on purpose, to the terminal only: the first sign-in needs it.
      process.stdout.write(
        `\n  First start: created user "${config.ADMIN_USERNAME}" with the role Administrators.\n` +
          `  Password (shown once, change it after signing in): ${admin.password}\n\n`,
      );
    } else if (admin.created) {
      log.info(`Created user "${config.ADMIN_USERNAME}" with the password from ADMIN_PASSWORD`);
    }
  }

  // Workers run in this process unless JOB_WORKERS=0; `npm run worker` adds more, here or elsewhere.
  await c.startJobs();
  await demo?.afterJobs(c, log);

  installGracefulShutdown({ app, c, graceMs: config.SHUTDOWN_GRACE_SECONDS * 1000, after: demo?.close });

  await app.listen({ port: config.PORT, host: config.HOST });
  // The bound port: PORT=0 asks the system for a free one.
  const port = (app.server.address() as { port?: number } | null)?.port ?? config.PORT;
  const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
  process.stdout.write(
    `\n  Fleetdesk${config.DEMO ? ' (DEMO)' : ''} is serving ${url}\n` +
      `  Database: ${c.database.driver === 'pglite' ? `embedded PGlite in ${config.DATA_DIR}/pgdata${config.PGLITE_THREAD === 'worker' ? ' (its own thread)' : ''}` : 'PostgreSQL (DATABASE_URL)'}\n` +
      (config.DEMO
        ? '  Log in as admin / admin (the Login button)\n'
        : `  Log in as "${config.ADMIN_USERNAME}" (the Login button)\n`) +
      (demo?.banner ?? '') +
      `  API docs: ${url}/api/docs\n\n`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
