/**
 * `.ci/run` runs the test suite twice, on PGlite and then on PostgreSQL (DATABASE_URL), and names the run in
 * CI_STEP. A file whose database is the same in both runs would do the same work twice, so it is in one run only
 * (decision 083); vitest.config.ts leaves it out of the other, where it is neither run nor reported. Every other file
 * runs in both, and without CI_STEP (`npm test`, also with CI set) every file runs. ci-runs.test.ts keeps the lists
 * true to the files.
 */
export const SAME_DATABASE_FILES = {
  /** Real processes on the PostgreSQL server whatever the run's DATABASE_URL (real-postgres.ts): the PostgreSQL run. */
  postgres: [
    'apps/api/src/db/migrate-lock.test.ts',
    'apps/api/src/db/prepared-arrays.test.ts',
    'apps/api/src/http/connection-loss.test.ts',
    'apps/api/src/http/multi-process.test.ts',
    'apps/api/src/jobs/connection-cut.test.ts',
    'apps/api/src/jobs/fault.test.ts',
    'apps/api/src/jobs/parsing-fault.test.ts',
    'apps/api/src/jobs/takeover.test.ts',
    'apps/api/src/modules/alerts/alerts-kill.test.ts',
    'apps/api/src/modules/launches/launches-fault.test.ts',
  ],
  /** Processes started with DATABASE_URL empty, on the embedded database: the PGlite run. */
  pglite: ['apps/api/src/jobs/takeover-pglite.test.ts', 'apps/api/src/lib/shutdown.test.ts', 'scripts/start.test.ts'],
};

/** The files CI's run `step` leaves to the other run. */
export function leftToOtherCiRun(step: string | undefined): string[] {
  if (step === undefined || step === '') return [];
  if (step === 'pglite') return SAME_DATABASE_FILES.postgres;
  if (step === 'postgres') return SAME_DATABASE_FILES.pglite;
  throw new Error(`CI_STEP must be pglite or postgres, not ${step}`);
}
