import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client.ts';
import { STORED_PLAN_KINDS, type StoredPlanKind } from '../../db/schema/index.ts';
import type { Actor } from '../../http/context.ts';
import { ConflictError } from '../../http/errors.ts';
import type { JobEngine, JobRow } from '../../lib/jobs.ts';
import { createTestDatabase } from '../../test/harness.ts';
import { byLane, createPlanEngine, inLanes, type RunKind } from './plans.engine.ts';
import { createPlansRepository, type PlansRepository } from './plans.repository.ts';

let database: Database;
let drop: () => Promise<void>;
let repo: PlansRepository;
beforeAll(async () => {
  ({ database, drop } = await createTestDatabase());
  repo = createPlansRepository(database.db);
});
afterAll(async () => drop?.());
beforeEach(async () => database.exec('TRUNCATE plans CASCADE'));

const actor: Actor = { userId: null, username: 'alice', rules: ['cnv'], requestId: null };

/** The job engine as the plan engine sees it: what it was asked, and jobs in the states a test gives them. */
function jobsDouble() {
  const rows = new Map<string, JobRow>();
  const asked: string[] = [];
  let n = 0;
  const engine = {
    async enqueue(kind: string, payload: unknown) {
      const row = { id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, kind, state: 'queued', payload };
      rows.set(row.id, row as unknown as JobRow);
      asked.push(`enqueue ${kind}`);
      return row as unknown as JobRow;
    },
    async cancel(row: JobRow) {
      asked.push(`cancel ${row.kind}`);
      return { ...row, state: 'cancelled' } as JobRow;
    },
    async resume(row: JobRow) {
      asked.push(`resume ${row.kind}`);
      return { ...row, state: 'queued' } as JobRow;
    },
    registry: { get: () => undefined },
  } satisfies JobEngine;
  return {
    asked,
    setState: (id: string, state: string) => rows.set(id, { ...rows.get(id)!, state } as JobRow),
    jobs: { find: async (id: string) => rows.get(id), engine: () => engine },
  };
}

/** Each kind with what its run works on: the engine's rules are the same for all of them. */
const KINDS: Record<StoredPlanKind, RunKind> = {
  imports: {
    kind: 'imports',
    toDo: { statuses: ['pending', 'running'], outcomes: ['create', 'link'] },
    inRun: (o) => o !== 'skip',
    unit: 'domains',
    runOutcomes: ['create', 'link'],
    runJob: 'imports.run',
  },
  fleet: {
    kind: 'fleet',
    toDo: { outcomes: ['change'], statuses: ['pending'] },
    inRun: (o) => o === 'change',
    unit: 'domains',
    runOutcomes: ['change'],
    runJob: 'fleet.run',
  },
  launches: {
    kind: 'launches',
    toDo: { statuses: ['pending'] },
    inRun: () => true,
    unit: 'names',
    runJob: 'launches.batch.run',
  },
};
const RUN_OUTCOME: Record<StoredPlanKind, string> = { imports: 'create', fleet: 'change', launches: 'launch' };
const OTHER_OUTCOME: Record<StoredPlanKind, string | null> = { imports: 'skip', fleet: 'same', launches: null };

describe.each(STORED_PLAN_KINDS)('the plan engine, for plans of the kind %s', (kind) => {
  const k = KINDS[kind];
  const statuses = async (id: string) =>
    (await repo.items(id, {}, 0, 100)).map((i) => `${i.name}:${i.status}${i.error ? `(${i.error})` : ''}`);

  /** A plan with `names` in its run, and one item outside it where the kind has such items. */
  async function planOf(names: string[], state = 'planned') {
    const p = await repo.insertPlan(kind, { selection: {}, createdBy: 'alice', state });
    const other = OTHER_OUTCOME[kind];
    await repo.insertItems(p.id, [
      ...names.map((name) => ({ name, outcome: RUN_OUTCOME[kind], status: 'pending' })),
      ...(other ? [{ name: 'outside.test', outcome: other, status: 'skipped' }] : []),
    ]);
    return p;
  }
  const ctx = () => ({ signal: new AbortController().signal, progress: async () => undefined });

  it('numbers plans per kind, and runs every item: a refusal fails that item only, the end state by the one rule', async () => {
    const { jobs } = jobsDouble();
    const engine = createPlanEngine(repo, jobs);
    const first = await planOf(['a.test']);
    const p = await planOf(['a.test', 'b.test', 'c.test']);
    expect(p.planNo).toBe(first.planNo + 1);
    expect(await engine.start(p.id)).toMatchObject({ state: 'running' });
    expect(await engine.start(p.id)).toBeUndefined();
    const seen: string[] = [];
    const ran = await engine.run(k, p.id, ctx(), async (it) => {
      seen.push(it.name);
      if (it.name === 'b.test') throw new ConflictError('Refused by the provider');
      return { status: 'done' };
    });
    expect(seen).toEqual(['a.test', 'b.test', 'c.test']);
    expect(ran.state).toBe('completed_with_failures');
    expect(ran.tally).toMatchObject({ total: 3, changed: 2, failed: 1, pending: 0 });
    expect((await repo.findPlan(kind, p.id))!.state).toBe('completed_with_failures');
    expect((await statuses(p.id)).slice(0, 3)).toEqual([
      'a.test:done',
      'b.test:failed(Refused by the provider)',
      'c.test:done',
    ]);
    // Every item failed: "failed", never "completed".
    const q = await planOf(['d.test']);
    await engine.start(q.id);
    const all = await engine.run(k, q.id, ctx(), async () => {
      throw new ConflictError('No');
    });
    expect(all.state).toBe('failed');
  });

  it('stops at the next item when the plan leaves "running"; any error is the item\'s, a lost connection is not', async () => {
    const { jobs } = jobsDouble();
    const engine = createPlanEngine(repo, jobs);
    const p = await planOf(['a.test', 'b.test', 'c.test']);
    await engine.start(p.id);
    const ran = await engine.run(k, p.id, ctx(), async (it) => {
      if (it.name === 'a.test') await engine.cancel(k, p.id, ['running']);
      return { status: 'done' };
    });
    expect(ran).toEqual({ stopped: 'cancelled' });
    expect((await statuses(p.id)).slice(0, 3)).toEqual(['a.test:done', 'b.test:cancelled', 'c.test:cancelled']);
    // A fault of one item (a bug, a provider's odd answer) fails that item: the other items still run.
    const q = await planOf(['a.test', 'b.test']);
    await engine.start(q.id);
    const odd = await engine.run(k, q.id, ctx(), async (it) => {
      if (it.name === 'a.test') throw new TypeError('x is undefined');
      return { status: 'done' };
    });
    expect(odd.state).toBe('completed_with_failures');
    expect((await statuses(q.id)).slice(0, 2)).toEqual(['a.test:failed(x is undefined)', 'b.test:done']);
    // A lost connection is waited for; the job stopped meanwhile ends the run with the plan still running.
    const r = await planOf(['a.test']);
    await engine.start(r.id);
    const stop = new AbortController();
    await expect(
      engine.run(k, r.id, { signal: stop.signal, progress: async () => undefined }, async () => {
        stop.abort(new Error('stopped'));
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      }),
    ).rejects.toThrow('Connection terminated');
    expect((await repo.findPlan(kind, r.id))!.state).toBe('running');
  });

  it("takes in a next round the items put back while it ran (a batch's retried names), then ends", async () => {
    const engine = createPlanEngine(repo, jobsDouble().jobs);
    const p = await planOf(['a.test', 'b.test']);
    await engine.start(p.id);
    await repo.updateItem(p.id, 2, { status: 'failed', error: 'Refused' });
    const seen: string[] = [];
    const ran = await engine.run(k, p.id, ctx(), async (it) => {
      seen.push(it.name);
      // Put back as a retry does it while the run goes on.
      if (it.name === 'a.test') await repo.updateItem(p.id, 2, { status: 'pending' });
      return { status: 'done' };
    });
    expect(seen).toEqual(['a.test', 'b.test']);
    expect(ran.state).toBe('completed');
  });

  it('pause stops the job; resume takes the stopped job back, or queues a new one; a plan not paused is refused', async () => {
    const d = jobsDouble();
    const engine = createPlanEngine(repo, d.jobs);
    const p = await planOf(['a.test', 'b.test']);
    await engine.start(p.id);
    const job = await engine.startJob(p, k.runJob, actor);
    d.setState(job.id, 'running');
    expect(await engine.pause(p.id)).toMatchObject({ state: 'paused' });
    expect(await engine.pause(p.id)).toBeUndefined();
    expect(d.asked).toEqual([`enqueue ${k.runJob}`, `cancel ${k.runJob}`]);
    d.setState(job.id, 'cancelled');
    expect(await engine.resume(k, (await repo.findPlan(kind, p.id))!, actor)).toBe(true);
    expect(d.asked.at(-1)).toBe(`resume ${k.runJob}`);
    // Its job gone (or of another kind): a new run job.
    const q = await planOf(['a.test'], 'paused');
    expect(await engine.resume(k, q, actor)).toBe(true);
    expect(d.asked.at(-1)).toBe(`enqueue ${k.runJob}`);
    expect((await repo.findPlan(kind, q.id))!).toMatchObject({ state: 'running', jobId: expect.any(String) });
    const r = await planOf(['a.test'], 'completed');
    expect(await engine.resume(k, r, actor)).toBe(false);
  });

  it('cancel ends the items not done (failed again where they had failed), stops the job, and only once', async () => {
    const d = jobsDouble();
    const engine = createPlanEngine(repo, d.jobs);
    const p = await planOf(['a.test', 'b.test', 'c.test']);
    await engine.start(p.id);
    const job = await engine.startJob(p, k.runJob, actor);
    d.setState(job.id, 'running');
    await repo.updateItem(p.id, 1, { status: 'done' });
    await repo.updateItem(p.id, 2, { status: 'pending', error: 'Timed out' });
    expect(await engine.cancel(k, p.id, ['planning', 'planned', 'running', 'paused'])).toMatchObject({
      state: 'cancelled',
    });
    expect(d.asked.at(-1)).toBe(`cancel ${k.runJob}`);
    expect((await statuses(p.id)).slice(0, 3)).toEqual(['a.test:done', 'b.test:failed(Timed out)', 'c.test:cancelled']);
    expect(await engine.cancel(k, p.id, ['planning', 'planned', 'running', 'paused'])).toBeUndefined();
    // Items outside the run keep their status.
    if (OTHER_OUTCOME[kind]) expect((await statuses(p.id))[3]).toBe('outside.test:skipped');
  });

  it('retry puts back the failed items only, of a finished or paused run', async () => {
    const engine = createPlanEngine(repo, jobsDouble().jobs);
    const p = await planOf(['a.test', 'b.test', 'c.test'], 'completed_with_failures');
    await repo.updateItem(p.id, 1, { status: 'done' });
    await repo.updateItem(p.id, 2, { status: 'failed', error: 'Refused' });
    await repo.updateItem(p.id, 3, { status: 'failed', error: 'Refused' });
    expect(await engine.retryFailed(k, p)).toBe(2);
    expect((await repo.findPlan(kind, p.id))!.state).toBe('running');
    // The error stays until an attempt decides.
    expect((await statuses(p.id)).slice(0, 3)).toEqual([
      'a.test:done',
      'b.test:pending(Refused)',
      'c.test:pending(Refused)',
    ]);
    expect(await engine.retryFailed(k, (await repo.findPlan(kind, p.id))!)).toBeUndefined();
    // Tried again, an item with nothing left to do keeps its failure: never "skipped" over it.
    const ran = await engine.run(k, p.id, ctx(), async (it) => ({ status: it.name === 'b.test' ? 'skipped' : 'done' }));
    expect(ran.state).toBe('completed_with_failures');
    expect((await statuses(p.id)).slice(0, 3)).toEqual(['a.test:done', 'b.test:failed(Refused)', 'c.test:done']);
  });

  it('a job taken over or stopped: a running plan reads cancelled like its job, a paused one keeps its items to redo', async () => {
    const engine = createPlanEngine(repo, jobsDouble().jobs);
    const p = await planOf(['a.test', 'b.test']);
    await engine.start(p.id);
    await repo.updateItem(p.id, 1, { status: 'running' });
    expect(await engine.jobStopped(k, p.id, 'run')).toMatchObject({ state: 'cancelled' });
    expect((await statuses(p.id)).slice(0, 2)).toEqual(['a.test:cancelled', 'b.test:cancelled']);
    const q = await planOf(['a.test', 'b.test']);
    await engine.start(q.id);
    await engine.pause(q.id);
    await repo.updateItem(q.id, 1, { status: 'running' });
    expect(await engine.jobStopped(k, q.id, 'run')).toMatchObject({ state: 'paused' });
    expect((await statuses(q.id)).slice(0, 2)).toEqual(['a.test:pending', 'b.test:pending']);
    // A plan job stopped while planning: the plan is cancelled, and there is no run to count.
    const r = await planOf(['a.test'], 'planning');
    expect(await engine.jobStopped(k, r.id, 'plan')).toBeUndefined();
    expect((await repo.findPlan(kind, r.id))!.state).toBe('cancelled');
  });

  it('a job resumed on the Jobs screen: paused carries on, failed retries its failures, cancelled both', async () => {
    const engine = createPlanEngine(repo, jobsDouble().jobs);
    for (const [state, expected] of [
      ['paused', ['a.test:failed(x)', 'b.test:cancelled', 'c.test:pending']],
      ['failed', ['a.test:pending(x)', 'b.test:cancelled', 'c.test:pending']],
      ['cancelled', ['a.test:pending(x)', 'b.test:pending', 'c.test:pending']],
    ] as const) {
      const p = await planOf(['a.test', 'b.test', 'c.test'], state);
      await repo.updateItem(p.id, 1, { status: 'failed', error: 'x' });
      await repo.updateItem(p.id, 2, { status: 'cancelled' });
      expect(await engine.jobResuming(k, p), state).toBe(true);
      expect((await repo.findPlan(kind, p.id))!.state).toBe('running');
      expect((await statuses(p.id)).slice(0, 3), state).toEqual(expected);
    }
    expect(await engine.jobResuming(k, await planOf(['a.test'], 'completed'))).toBe(false);
  });

  it('a cancel asked on the Jobs screen cancels at once: no pending item starts, the one in flight finishes', async () => {
    const engine = createPlanEngine(repo, jobsDouble().jobs);
    const p = await planOf(['a.test', 'b.test']);
    await engine.start(p.id);
    await repo.updateItem(p.id, 1, { status: 'running' });
    await engine.jobCancelling(k, p.id, 'run');
    expect((await repo.findPlan(kind, p.id))!.state).toBe('cancelled');
    expect((await statuses(p.id)).slice(0, 2)).toEqual(['a.test:running', 'b.test:cancelled']);
    expect(await repo.claimItem(p.id, 2)).toBe(false);
    // A job that failed for good: the plan says why.
    const q = await planOf(['a.test'], 'planning');
    await engine.jobEnded(q.id, 'plan', 'Cloudflare: timed out');
    expect(await repo.findPlan(kind, q.id)).toMatchObject({ state: 'failed', error: 'Cloudflare: timed out' });
  });
});

describe('lanes', () => {
  it('works the lanes side by side, at most perLane at once within one, each in order, and stops on abort', async () => {
    const items = ['a1', 'b1', 'a2', 'a3', 'b2', 'c1', 'a4'].map((name) => ({ name, lane: name[0]! }));
    const lanes = byLane(items, (it) => it.lane);
    expect(lanes.map((l) => l.map((i) => i.name))).toEqual([['a1', 'a2', 'a3', 'a4'], ['b1', 'b2'], ['c1']]);
    const busy = new Map<string, number>();
    let most = 0;
    const started: string[] = [];
    await inLanes(lanes, 2, new AbortController().signal, async (it) => {
      started.push(it.name);
      busy.set(it.lane, (busy.get(it.lane) ?? 0) + 1);
      most = Math.max(most, busy.get(it.lane)!);
      await new Promise((r) => setTimeout(r, 5));
      busy.set(it.lane, busy.get(it.lane)! - 1);
    });
    expect(most).toBe(2);
    expect(started.filter((n) => n.startsWith('a'))).toEqual(['a1', 'a2', 'a3', 'a4']);
    // All three lanes began before lane a finished its first two.
    expect(started.slice(0, 5).sort()).toEqual(['a1', 'a2', 'b1', 'b2', 'c1']);
    const stop = new AbortController();
    const done: string[] = [];
    await inLanes(lanes, 1, stop.signal, async (it) => {
      done.push(it.name);
      if (it.name === 'a2') stop.abort();
    });
    expect(done).not.toContain('a3');
  });
});
