/**
 * A real API process for the shutdown test: the app's container, server and graceful shutdown (the same code
 * main.ts runs), plus one job kind whose steps are slow. `node --import tsx shutdown-app.ts start|resume`.
 * `start` queues that job and says when its first step began; `resume` waits for the job to finish.
 */
import { z } from 'zod';
import { loadConfig } from '../config.ts';
import { createContainer } from '../container.ts';
import { buildApp } from '../app.ts';
import { defineJob } from '../jobs/registry.ts';
import { installGracefulShutdown } from '../lib/shutdown.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);

const slowSteps = defineJob({
  kind: 'test.shutdown-steps',
  area: 'cnv:domains',
  payload: z.object({ stepMs: z.number().int().min(0).max(60_000) }),
  steps: () => ['one', 'two', 'three'].map((key) => ({ key, label: `Step ${key}` })),
  resumable: true,
  retry: { limit: 0, delaySeconds: 0, backoff: false },
  timeoutSeconds: 120,
  async handler(ctx) {
    for (const key of ['one', 'two', 'three']) {
      await ctx.step(key, async () => {
        say(`step ${key} started`);
        // Not abortable on purpose: a step in flight is allowed to finish.
        await new Promise((r) => setTimeout(r, ctx.payload.stepMs));
        say(`step ${key} done`);
      });
    }
    return { pid: process.pid };
  },
});

async function main() {
  const mode = process.argv[2] === 'resume' ? 'resume' : 'start';
  const config = loadConfig(process.env, { dotenv: false });
  const c = await createContainer(config, {
    extraJobs: [slowSteps],
    jobOptions: { pollingIntervalSeconds: 0.5, progressThrottleMs: 0 },
  });
  await c.database.migrate();
  await c.startJobs({ periodic: false });
  const app = await buildApp(c, { logger: { level: 'info' }, webDist: null });
  installGracefulShutdown({ app, c, graceMs: config.SHUTDOWN_GRACE_SECONDS * 1000 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  say(`ready ${(app.server.address() as { port: number }).port}`);
  if (mode === 'start') {
    const row = await c.jobEngine.enqueue('test.shutdown-steps', { stepMs: Number(process.env.STEP_MS ?? 1500) });
    say(`job ${row.id}`);
  } else {
    const was = await c.repos.jobs.find(process.env.JOB_ID ?? '');
    say(`before ${JSON.stringify({ state: was?.state, error: was?.error, steps: was?.steps })}`);
    const row = await c.jobEngine.waitFor(process.env.JOB_ID ?? '', 60_000);
    say(`finished ${JSON.stringify({ state: row.state, steps: row.steps, attempts: row.attempts })}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
