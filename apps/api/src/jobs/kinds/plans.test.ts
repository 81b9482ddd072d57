import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConflictError } from '../../http/errors.ts';
import { PermanentJobError, type JobContext } from '../registry.ts';
import { definePlanJob } from './plans.ts';

const Payload = z.object({ planId: z.string() });
type P = z.infer<typeof Payload>;

/** A plan job whose handler throws `err`, and what it told the plan. */
function jobThrowing(err: unknown, o: { refusalsFinal?: boolean; stopped?: boolean } = {}) {
  const said: string[] = [];
  const def = definePlanJob<P>({
    kind: 'test.run',
    which: 'run',
    payload: Payload,
    planOf: (p) => p.planId,
    host: () => ({
      jobEnded: async (id, which, error) => void said.push(`${id} ${which} ${error}`),
      ...(o.stopped ? { jobStopped: async () => undefined } : {}),
    }),
    retry: { limit: 2, delaySeconds: 1, backoff: false },
    timeoutSeconds: 60,
    refusalsFinal: o.refusalsFinal,
    handler: async () => {
      throw err;
    },
  });
  const run = (attempt: number, aborted = false) => {
    const c = new AbortController();
    if (aborted) c.abort();
    return def.handler({ payload: { planId: 'p1' }, attempt, signal: c.signal } as unknown as JobContext<P>);
  };
  return { def, said, run };
}

describe('a plan job, for every kind', () => {
  it('tells the plan of a failure only once the retries are spent', async () => {
    const j = jobThrowing(new Error('boom'));
    await expect(j.run(1)).rejects.toThrow('boom');
    await expect(j.run(2)).rejects.toThrow('boom');
    expect(j.said).toEqual([]);
    await expect(j.run(3)).rejects.toThrow('boom');
    expect(j.said).toEqual(['p1 run boom']);
    expect(j.def.resumable).toBe(true);
  });

  it('ends at once on a refusal when the kind says another attempt cannot fix it', async () => {
    const j = jobThrowing(new ConflictError('No panel credentials'), { refusalsFinal: true });
    await expect(j.run(1)).rejects.toBeInstanceOf(PermanentJobError);
    expect(j.said).toEqual(['p1 run No panel credentials']);
    const k = jobThrowing(new ConflictError('No panel credentials'));
    await expect(k.run(1)).rejects.toBeInstanceOf(ConflictError);
    expect(k.said).toEqual([]);
  });

  it('a stopped job: the plan is ended as cancelled, unless the kind ends it itself (stopped)', async () => {
    const j = jobThrowing(new Error('aborted'));
    await expect(j.run(1, true)).rejects.toThrow('aborted');
    expect(j.said).toEqual(['p1 run null']);
    const k = jobThrowing(new Error('aborted'), { stopped: true });
    await expect(k.run(3, true)).rejects.toThrow('aborted');
    expect(k.said).toEqual([]);
  });
});
