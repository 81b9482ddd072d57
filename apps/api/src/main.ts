import { loadConfig, ConfigError, type Config } from './config.ts';
import { seedDemoFleet } from './db/seed-demo-fleet.ts';
import { createContainer } from './container.ts';
import { buildApp } from './app.ts';
import { seedDemo } from './db/seed-demo.ts';
import { attachDemoNamecheap, attachDemoPanels, attachDemoSsh, startDemoProviders } from './demo.ts';

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

  const providers = config.DEMO ? await startDemoProviders(config.DATA_DIR) : undefined;
  if (providers) {
    // Demo mode talks to its own simulators; nothing leaves the machine.
    config = {
      ...config,
      CLOUDFLARE_API_URL: providers.cloudflare.url,
      YANDEX_WEBMASTER_API_URL: providers.yandexWebmaster.url,
      PROXY_CHECK_URL: `http://127.0.0.1:${config.PORT}/healthz`,
      NAMECHEAP_CLIENT_IP: config.NAMECHEAP_CLIENT_IP ?? '127.0.0.1',
    };
  }
  const c = await createContainer(config);
  await c.database.migrate();
  const app = await buildApp(c);
  const log = app.log;

  if (config.DEMO) {
    log.warn('DEMO MODE: sample data and simulated providers; sign in as admin / admin. Do not use for real work.');
    await seedDemo(c, providers!, log);
    await attachDemoSsh(c, providers!);
    await attachDemoNamecheap(c, providers!);
    await attachDemoPanels(c, providers!);
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
  if (config.DEMO) seedDemoFleet(c, log);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    await app.close().catch(() => undefined);
    await c.close().catch(() => undefined);
    await providers?.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.PORT, host: config.HOST });
  const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${config.PORT}`;
  process.stdout.write(
    `\n  Fleetdesk${config.DEMO ? ' (DEMO)' : ''} is serving ${url}\n` +
      `  Database: ${c.database.driver === 'pglite' ? `embedded PGlite in ${config.DATA_DIR}/pgdata` : 'PostgreSQL (DATABASE_URL)'}\n` +
      (config.DEMO ? '  Sign in as admin / admin\n' : `  Sign in as "${config.ADMIN_USERNAME}"\n`) +
      (providers
        ? `  Simulated providers: Cloudflare ${providers.cloudflare.url}, Namecheap ${providers.namecheap.url}, Yandex Webmaster ${providers.yandexWebmaster.url}, SSH host 127.0.0.1:${providers.sshHost.port}, proxy ${providers.proxy.url}, DirectAdmin ${providers.directAdmin.url}, ISPmanager ${providers.ispManager.url}\n`
        : '') +
      `  API docs: ${url}/api/docs\n\n`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
