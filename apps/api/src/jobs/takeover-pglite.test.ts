import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'vitest';
import { checkFinished, client, kill9, start, startRun, useTakeoverSim } from './takeover-processes.ts';

/**
 * Killed work comes back (decision 039), on PGlite: the one process, killed with SIGKILL mid-run of a fleet run of 40
 * domains, is started again on the same data directory; it takes the run back, carries on from the first domain not
 * done, and every domain is changed exactly once. Its processes use the embedded database whatever the suite's
 * DATABASE_URL. On PostgreSQL: takeover.test.ts.
 */
describe('killed work comes back, with real processes', () => {
  const simOf = useTakeoverSim();

  it('PGlite: the process killed with SIGKILL mid-run and started again finishes the run, each domain once', async () => {
    const sim = simOf();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-takeover-'));
    const env = { DATA_DIR: dataDir, DATABASE_URL: '', CLOUDFLARE_API_URL: sim.url, CLOUDFLARE_TIMEOUT_SECONDS: '10' };
    try {
      const first = await start(env);
      const { planId, zones } = await startRun(sim, await client(first.url));
      await kill9(first.child);
      const killedAt = Date.now();
      const second = await start(env);
      await checkFinished(sim, await client(second.url), planId, zones);
      console.info(`PGlite: finished ${Math.round((Date.now() - killedAt) / 1000)} s after the kill`);
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 600_000);
});
