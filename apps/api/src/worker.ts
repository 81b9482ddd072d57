import { loadConfig, ConfigError, type Config } from './config.ts';
import { pino } from 'pino';
import { createContainer } from './container.ts';
import { connectionLossLogger } from './db/client.ts';
import { survivesConnectionLoss } from './db/pg-errors.ts';
import { setProviderCallLogger } from './integrations/provider-calls.ts';
import { refuseWrongAppKey } from './lib/app-key-check.ts';
import type { JobDefinition } from './jobs/registry.ts';
import type { JobEngineOptions } from './jobs/engine.ts';

/**
 * A job worker without the HTTP server: the same container and registry as the API, against the same
 * database (DATABASE_URL; on this machine or another). PGlite has one process only: there the API's own
 * workers are all there is (decision record 022).
 */
export async function runWorker(
  opts: { extraJobs?: JobDefinition[]; jobOptions?: Partial<JobEngineOptions>; periodic?: boolean } = {},
) {
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
  if (!config.DATABASE_URL) {
    console.error('npm run worker needs DATABASE_URL: the embedded PGlite database belongs to the API process.');
    process.exit(2);
  }
  const log = pino({ level: config.LOG_LEVEL, base: { worker: true } });
  survivesConnectionLoss((o, m) => log.warn(o, m));
  // A lost database connection is logged and replaced; the worker never exits for it (README, decision 063).
  const c = await createContainer(
    { ...config, JOB_WORKERS: true },
    {
      extraJobs: opts.extraJobs,
      jobOptions: opts.jobOptions,
      log,
      onDatabaseConnectionLost: connectionLossLogger((o, m) => log.warn(o, m)),
    },
  );
  // Provider calls made by jobs are logged once each, as in the API (JSON lines at LOG_LEVEL).
  setProviderCallLogger(log);
  await c.database.migrate();
  await refuseWrongAppKey(c);
  await c.startJobs({ periodic: opts.periodic });
  process.stdout.write(`Fleetdesk worker ${c.jobEngine.workerName} is running jobs from PostgreSQL\n`);

  // Graceful: no new job; steps in flight get SHUTDOWN_GRACE_SECONDS, then what still runs goes back to the queue.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`worker: ${signal}, finishing the job steps in flight\n`);
    const timer = setTimeout(() => process.exit(1), config.SHUTDOWN_GRACE_SECONDS * 1000 + 15_000);
    timer.unref();
    await c.close(config.SHUTDOWN_GRACE_SECONDS * 1000).catch(() => undefined);
    process.stdout.write('worker: stopped\n');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  return c;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runWorker().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
