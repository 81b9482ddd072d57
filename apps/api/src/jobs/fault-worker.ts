/**
 * A real worker (or API) process for the fault tests: the app's own container and engine with the fault
 * job kinds added and short intervals. `node --import tsx fault-worker.ts worker|api`, with DATABASE_URL.
 */
import { loadConfig } from '../config.ts';
import { createContainer, type Container } from '../container.ts';
import { buildApp } from '../app.ts';
import { faultJobKinds } from './fault-kinds.ts';
import { survivesConnectionLoss } from '../db/pg-errors.ts';

const FAST = {
  pollingIntervalSeconds: 0.5,
  maintenanceIntervalSeconds: 1,
  expireGraceSeconds: 1,
  reconcileIntervalSeconds: 2,
  progressThrottleMs: 0,
  concurrency: 2,
};

async function main() {
  const mode = process.argv[2] === 'api' ? 'api' : 'worker';
  // As worker.ts and main.ts do.
  survivesConnectionLoss(() => undefined);
  const config = { ...loadConfig(process.env, { dotenv: false }), JOB_WORKERS: true };
  let c: Container | undefined = undefined;
  c = await createContainer(config, { extraJobs: faultJobKinds(() => c!.database), jobOptions: FAST });
  await c.startJobs({ periodic: false });
  if (mode === 'api') {
    const app = await buildApp(c, { logger: false, webDist: null });
    await app.listen({ port: 0, host: '127.0.0.1' });
  }
  process.stdout.write(`ready ${mode} ${process.pid}\n`);
  process.on('SIGTERM', () => {
    void c!.close().finally(() => process.exit(0));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
