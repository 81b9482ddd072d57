import { z } from 'zod';
import { RetryLaterError, defineJob, type JobDefinition } from './registry.ts';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Job kinds the engine's tests register (never the app): they exercise retries, timeouts, cancellation,
 * the per-domain rule and progress through the real engine and pg-boss.
 */
export function testJobKinds(): JobDefinition[] {
  return [
    defineJob({
      kind: 'test.echo',
      area: 'cnv:domains',
      payload: z.object({ n: z.number().int() }),
      retry: { limit: 0, delaySeconds: 0, backoff: false },
      timeoutSeconds: 30,
      async handler(ctx) {
        await ctx.progress({ done: 1, total: 2, unit: 'steps', message: 'halfway' }, { force: true });
        return { doubled: ctx.payload.n * 2 };
      },
    }),
    defineJob({
      kind: 'test.flaky',
      area: 'cnv:domains',
      payload: z.object({ failTimes: z.number().int().min(0) }),
      retry: { limit: 2, delaySeconds: 1, backoff: true },
      timeoutSeconds: 30,
      async handler(ctx) {
        if (ctx.attempt <= ctx.payload.failTimes) throw new Error(`Attempt ${ctx.attempt} failed on purpose`);
        return { attempt: ctx.attempt };
      },
    }),
    defineJob({
      kind: 'test.later',
      area: 'cnv:domains',
      payload: z.object({ failTimes: z.number().int().min(0), afterSeconds: z.number().int().min(0) }),
      retry: { limit: 2, delaySeconds: 1, backoff: false },
      timeoutSeconds: 30,
      async handler(ctx) {
        if (ctx.attempt <= ctx.payload.failTimes)
          throw new RetryLaterError(`Busy: retry after ${ctx.payload.afterSeconds} s`, ctx.payload.afterSeconds);
        return { attempt: ctx.attempt };
      },
    }),
    defineJob({
      kind: 'test.slow',
      area: 'cnv:servers',
      payload: z.object({ ms: z.number().int().min(0).max(600_000) }),
      retry: { limit: 0, delaySeconds: 0, backoff: false },
      timeoutSeconds: 2,
      async handler(ctx) {
        const until = Date.now() + ctx.payload.ms;
        let i = 0;
        while (Date.now() < until) {
          await ctx.progress({ done: ++i, total: null, unit: 'ticks' });
          await sleep(50, ctx.signal);
        }
        return { ticks: i };
      },
    }),
    defineJob({
      kind: 'test.domain',
      area: 'cnv:domains',
      payload: z.object({ domainId: z.uuid(), ms: z.number().int().min(0).max(60_000) }),
      domainOf: (p) => p.domainId,
      retry: { limit: 0, delaySeconds: 0, backoff: false },
      timeoutSeconds: 30,
      async handler(ctx) {
        await sleep(ctx.payload.ms, ctx.signal);
        return { ok: true };
      },
    }),
    defineJob({
      kind: 'test.steps',
      area: 'cnv:domains',
      payload: z.object({ domainId: z.uuid(), failAt: z.string().nullable() }),
      domainOf: (p) => p.domainId,
      steps: () => [
        { key: 'one', label: 'Step one' },
        { key: 'two', label: 'Step two' },
        { key: 'three', label: 'Step three' },
      ],
      resumable: true,
      retry: { limit: 0, delaySeconds: 0, backoff: false },
      timeoutSeconds: 30,
      async handler(ctx) {
        const ran: string[] = [...(((ctx.previous.result as { ran?: string[] } | null)?.ran as string[]) ?? [])];
        for (const key of ['one', 'two', 'three']) {
          await ctx.step(key, async () => {
            if (ctx.payload.failAt === key && ctx.attempt === 1) throw new Error(`Step ${key} broke`);
            ran.push(key);
          });
        }
        return { ran };
      },
    }),
  ];
}
