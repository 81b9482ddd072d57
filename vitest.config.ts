import { configDefaults, defineConfig } from 'vitest/config';
import { leftToOtherCiRun } from './apps/api/src/test/ci-runs.ts';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts'],
    // The real-OpenSSH tests need an sshd (scripts/real-sshd.sh sets REAL_SSHD_PORT); CI runs them in a step of their own.
    // CI's two runs (CI_STEP): a file whose database is the same in both is in one only (test/ci-runs.ts).
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.REAL_SSHD_PORT ? [] : ['**/real-sshd*.test.ts']),
      ...leftToOtherCiRun(process.env.CI_STEP),
    ],
    environment: 'node',
    // The migrations applied once per run, to the database each test file's own starts as a copy of.
    globalSetup: ['apps/api/src/test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // PGlite instances are heavy; two cores, so keep parallelism modest.
    maxWorkers: 2,
    pool: 'forks',
    // A worker keeps its loaded modules from one test file to the next (decision 079): each file still makes its own
    // app, database and simulators, and no test changes a module's state or process.env; importing the app for
    // each of 160 files cost about 40 % of the suite's time.
    isolate: false,
  },
});
