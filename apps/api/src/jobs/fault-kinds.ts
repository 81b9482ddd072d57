import { z } from 'zod';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { defineJob, type JobDefinition } from './registry.ts';

/**
 * The job kinds of the fault tests (jobs/fault.test.ts), run by real worker processes (fault-worker.ts).
 * Their side effects go to two test tables the test creates: fault_runs (one row per delivery, with the
 * process and the time span) and fault_steps (idempotent: one row per step, whatever the retries).
 */
export function faultJobKinds(database: () => Database): JobDefinition[] {
  const db = () => database().db;
  return [
    defineJob({
      kind: 'fault.count',
      area: 'cnv:domains',
      payload: z.object({ n: z.number().int() }),
      retry: { limit: 2, delaySeconds: 1, backoff: false },
      timeoutSeconds: 30,
      async handler(ctx) {
        const started = new Date();
        await new Promise((r) => setTimeout(r, 20 + (ctx.payload.n % 5) * 10));
        await db().execute(
          sql`insert into fault_runs (job_id, pid, started_at, finished_at) values (${ctx.jobId}, ${process.pid}, ${started.toISOString()}, ${new Date().toISOString()})`,
        );
        return { n: ctx.payload.n };
      },
    }),
    defineJob({
      kind: 'fault.steps',
      area: 'cnv:domains',
      payload: z.object({ steps: z.number().int().min(1).max(1000), stepMs: z.number().int().min(0).max(5000) }),
      retry: { limit: 3, delaySeconds: 0, backoff: false },
      timeoutSeconds: 8,
      async handler(ctx) {
        // Resumes after the last step an earlier run recorded; each step's effect is written once.
        const from = (ctx.previous.progress as { done?: number } | null)?.done ?? 0;
        for (let i = from; i < ctx.payload.steps; i++) {
          await db().execute(
            sql`insert into fault_steps (job_id, step, pid) values (${ctx.jobId}, ${i}, ${process.pid}) on conflict do nothing`,
          );
          await ctx.progress({ done: i + 1, total: ctx.payload.steps, unit: 'steps' }, { force: true });
          await new Promise((r) => setTimeout(r, ctx.payload.stepMs));
        }
        const res = await db().execute(
          sql`select count(*)::int as n, coalesce(sum(step), 0)::int as s from fault_steps where job_id = ${ctx.jobId}`,
        );
        const row = (res as unknown as { rows: { n: number; s: number }[] }).rows[0]!;
        return { steps: row.n, sum: row.s };
      },
    }),
  ];
}
