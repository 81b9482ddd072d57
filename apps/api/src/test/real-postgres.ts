import { loadConfig } from '../config.ts';
import { runsInOtherCiStep } from './ci-step.ts';

/**
 * The PostgreSQL server for tests that need real processes sharing one database. With CI set it is DATABASE_URL
 * or else the CI server at 127.0.0.1:5432 (an unreachable server then fails the test, never skips it); without
 * CI it is DATABASE_URL, and undefined when that is unset (the caller skips, saying so). In CI's PGlite run it is
 * undefined too: the same test runs against the same server in the PostgreSQL run (ci-step.ts).
 */
export function realPostgresUrl(file: string, needs: string): string | undefined {
  if (runsInOtherCiStep(file, 'postgres')) return undefined;
  const url =
    loadConfig(process.env, { dotenv: false }).DATABASE_URL ??
    (process.env.CI ? 'postgres://postgres@127.0.0.1:5432/postgres' : undefined);
  if (!url) console.warn(`${file} skipped: ${needs} PostgreSQL (set DATABASE_URL).`);
  return url;
}
