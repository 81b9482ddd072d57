import { loadConfig } from '../config.ts';

/**
 * The PostgreSQL server for tests that need real processes sharing one database. With CI set it is DATABASE_URL
 * or else the CI server at 127.0.0.1:5432 (an unreachable server then fails the test, never skips it); without
 * CI it is DATABASE_URL, and undefined when that is unset (the caller skips, saying so).
 */
export function realPostgresUrl(file: string, needs: string): string | undefined {
  const url =
    loadConfig(process.env, { dotenv: false }).DATABASE_URL ??
    (process.env.CI ? 'postgres://postgres@127.0.0.1:5432/postgres' : undefined);
  if (!url) console.warn(`${file} skipped: ${needs} PostgreSQL (set DATABASE_URL).`);
  return url;
}
