/**
 * Our API as the lists benchmark runs it: the real app (auth, rules, validation, rate limits set high), no job
 * workers, logging off. Started by the bench as a child process:
 *   DATABASE_URL=... PORT=... tsx bench/lists-app.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../apps/api/src/config.ts';
import { createContainer } from '../apps/api/src/container.ts';
import { buildApp } from '../apps/api/src/app.ts';

const config = loadConfig(
  {
    ...process.env,
    LOG_LEVEL: 'silent',
    JOB_WORKERS: '0',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_ADDRESS_PER_MINUTE: '1000000',
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'fd-lists-app-')),
  },
  { dotenv: false },
);
const c = await createContainer(config);
const app = await buildApp(c, { logger: false, webDist: null });
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`ready ${(app.server.address() as { port: number }).port}\n`);
const stop = async () => {
  await app.close().catch(() => undefined);
  await c.close().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
