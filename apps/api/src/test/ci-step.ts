/**
 * `.ci/run` runs the suite twice, on PGlite and then on PostgreSQL, and names the run in CI_STEP. A file whose
 * database is the same in both runs proves nothing new the second time: the real-PostgreSQL process tests use the CI
 * server in either run (real-postgres.ts), and the embedded-only ones (`npm start`, graceful shutdown, the PGlite
 * takeover) set DATABASE_URL empty for their processes. Such a file runs in the one run named here and is skipped,
 * saying so, in the other. Without CI_STEP (`npm test`, also with CI set) every file runs.
 */
export function runsInOtherCiStep(file: string, runsIn: 'pglite' | 'postgres'): boolean {
  const step = process.env.CI_STEP;
  if (step === undefined || step === '') return false;
  if (step !== 'pglite' && step !== 'postgres') throw new Error(`CI_STEP must be pglite or postgres, not ${step}`);
  if (step === runsIn) return false;
  console.info(`${file}: its database is the same in both CI runs; it runs in the ${runsIn} one.`);
  return true;
}
