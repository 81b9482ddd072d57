import { defineConfig, devices } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PORT = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${PORT}`;

// Workers load this file again; the environment carries the runner's directory to them, so there is only one.
if (!process.env.FLEETDESK_E2E_DATA_DIR) {
  const created = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetdesk-e2e-'));
  process.env.FLEETDESK_E2E_DATA_DIR = created;
  // The server is stopped by then; E2E_KEEP_DATA=1 keeps the database for a post-mortem.
  if (!process.env.E2E_KEEP_DATA) process.on('exit', () => fs.rmSync(created, { recursive: true, force: true }));
}
const dataDir = process.env.FLEETDESK_E2E_DATA_DIR;

/**
 * CI runs the suite as two groups side by side, each with its own demo server and port (decision 080): `waits`, the
 * specs that mostly wait on the demo's clocks or walk every route, with enough others (Cloudflare, imports, launch
 * profiles, people) that the two groups take about as long, and `rest`. Unset: the whole suite. In the CI run of
 * 2026-11-28 with only Cloudflare and imports moved, `rest` took 11.6 min and `waits` 9.5 (decision 082).
 */
const WAITS = [
  '**/responsive.spec.ts',
  '**/launches.spec.ts',
  '**/alerts.spec.ts',
  '**/cloud-flare.spec.ts',
  '**/imports.spec.ts',
  '**/launch-profiles.spec.ts',
  '**/people.spec.ts',
];
const group = process.env.E2E_GROUP;
if (group && group !== 'waits' && group !== 'rest') throw new Error(`E2E_GROUP must be waits or rest, not ${group}`);

export default defineConfig({
  testDir: 'e2e',
  ...(group === 'waits' ? { testMatch: WAITS } : group === 'rest' ? { testIgnore: WAITS } : {}),
  // Each group keeps its own artefacts: a run empties its output directory when it starts.
  outputDir: group ? `test-results/${group}` : 'test-results',
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI
    ? [['list'], ['html', { open: 'never', outputFolder: group ? `playwright-report/${group}` : 'playwright-report' }]]
    : 'list',
  use: {
    baseURL,
    // A trace records every action's DOM (a fifth of the suite's CPU on 2 cores): E2E_TRACE=1 keeps one for each
    // failed test. A failure's screenshot is always kept.
    trace: process.env.E2E_TRACE ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath: '/usr/bin/chromium',
          // Without these Chromium fills the closed network with refused connections.
          args: ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'],
        },
      },
    },
  ],
  webServer: {
    command: 'node scripts/start.mjs --demo',
    url: `${baseURL}/healthz`,
    timeout: 180_000,
    reuseExistingServer: false,
    // The suite sets up its data through the API as fast as it can (205 regions in a second, then deletes them):
    // far past one operator's request rate. The limits themselves are tested in the API suite.
    env: {
      PORT: String(PORT),
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '10000',
      RATE_LIMIT_ADDRESS_PER_MINUTE: '20000',
      // Forty-odd specs sign in, some several times a test (SSO, two-factor): more than one person's minute.
      RATE_LIMIT_LOGIN_PER_MINUTE: '1000',
    },
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
