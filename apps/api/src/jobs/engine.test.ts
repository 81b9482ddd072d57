import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { defineJob } from './registry.ts';
import { testJobKinds } from './test-kinds.ts';

// The engine end to end on this run's database (PGlite, or PostgreSQL with DATABASE_URL): real pg-boss,
// real workers in this process, short polling so the file stays quick.
let t: TestApp;
let admin: string;
let domainsOnly: string;
let serversOnly: string;
let domainId: string;
/** The `test.wide` kind runs three at once (its own concurrency, above the engine's two): how many run now, and the most. */
const wide = { running: 0, most: 0, release: () => {}, released: Promise.resolve() };
const wideKind = defineJob({
  kind: 'test.wide',
  area: 'cnv:domains',
  payload: z.object({}),
  concurrency: 3,
  retry: { limit: 0, delaySeconds: 0, backoff: false },
  timeoutSeconds: 30,
  async handler() {
    wide.running++;
    wide.most = Math.max(wide.most, wide.running);
    // Held until the test lets go (bounded), so the jobs that run at once are seen together.
    await Promise.race([wide.released, new Promise((r) => setTimeout(r, 15_000))]);
    wide.running--;
    return {};
  },
});

/** `test.periodic`: a scheduled kind whose runs are held until released, counting how many run at once. */
const periodic = { running: 0, most: 0, release: () => {}, released: Promise.resolve() };
const periodicKind = defineJob({
  kind: 'test.periodic',
  area: 'cnv:domains',
  payload: z.object({}).passthrough(),
  retry: { limit: 0, delaySeconds: 0, backoff: false },
  timeoutSeconds: 30,
  async handler() {
    periodic.running++;
    periodic.most = Math.max(periodic.most, periodic.running);
    await Promise.race([periodic.released, new Promise((r) => setTimeout(r, 15_000))]);
    periodic.running--;
    return {};
  },
});

/**
 * `test.inflight`: one step in flight that does not heed the signal (a provider call under way) and records its
 * outcome when it ends; `stopped` reads what was recorded when the job is tidied after a cancel.
 */
const inflight = { started: false, recorded: false, seenByStopped: null as boolean | null };
const inflightKind = defineJob({
  kind: 'test.inflight',
  area: 'cnv:domains',
  payload: z.object({}),
  retry: { limit: 0, delaySeconds: 0, backoff: false },
  timeoutSeconds: 30,
  async handler(ctx) {
    inflight.started = true;
    await new Promise((r) => setTimeout(r, 1_500));
    inflight.recorded = true;
    ctx.signal.throwIfAborted();
    return {};
  },
  async stopped() {
    inflight.seenByStopped = inflight.recorded;
    return undefined;
  },
});

beforeAll(async () => {
  t = await createTestApp(
    {},
    {
      extraJobs: [...testJobKinds(), wideKind, periodicKind, inflightKind],
      jobOptions: {
        pollingIntervalSeconds: 0.5,
        maintenanceIntervalSeconds: 1,
        expireGraceSeconds: 1,
        reconcileIntervalSeconds: 1,
        progressThrottleMs: 0,
      },
    },
  );
  await t.c.startJobs({ periodic: false });
  admin = await t.tokenFor(['cnv']);
  domainsOnly = await t.tokenFor(['cnv:domains']);
  serversOnly = await t.tokenFor(['cnv:servers']);
  const res = await t.inject({
    method: 'POST',
    url: '/api/domains',
    headers: { authorization: admin },
    payload: { domainName: 'jobs-engine.example', status: 'active' },
  });
  domainId = res.json().data._id;
}, 60_000);
afterAll(async () => t?.close());

const engine = () => t.c.jobEngine;
const getJob = async (id: string, auth = admin) =>
  t.inject({ method: 'GET', url: `/api/jobs/${id}`, headers: { authorization: auth } });

describe('job engine', () => {
  it('runs a job, stores progress and result, and lists it', async () => {
    const row = await engine().enqueue('test.echo', { n: 21 }, { createdBy: 'tester' });
    const done = await engine().waitFor(row.id);
    expect(done.state).toBe('completed');
    expect(done.result).toEqual({ doubled: 42 });
    expect(done.progress).toMatchObject({ done: 1, total: 2, message: 'halfway' });
    const res = await getJob(row.id);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ state: 'completed', attempts: 1, kind: 'test.echo' });
    const list = await t.inject({
      method: 'GET',
      url: '/api/jobs?kind=test.echo',
      headers: { authorization: admin },
    });
    expect(list.statusCode).toBe(400); // kinds are a closed list in the contract
    const all = await t.inject({ method: 'GET', url: '/api/jobs?state=completed', headers: { authorization: admin } });
    expect(all.json().data.items.map((j: { _id: string }) => j._id)).toContain(row.id);
  });

  it('lists one job by its id (how a plan links to its job), and refuses an id that is not one', async () => {
    const other = await engine().enqueue('test.echo', { n: 1 }, { createdBy: 'tester' });
    const row = await engine().enqueue('test.echo', { n: 2 }, { createdBy: 'tester' });
    await engine().waitFor(other.id);
    await engine().waitFor(row.id);
    const one = await t.inject({ method: 'GET', url: `/api/jobs?id=${row.id}`, headers: { authorization: admin } });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().data).toMatchObject({ itemsCount: 1, items: [{ _id: row.id, jobNo: row.jobNo }] });
    // With the other filters it narrows as they do: the same job in another state is not listed.
    const none = await t.inject({
      method: 'GET',
      url: `/api/jobs?id=${row.id}&state=failed`,
      headers: { authorization: admin },
    });
    expect(none.json().data).toEqual({ items: [], itemsCount: 0 });
    const bad = await t.inject({ method: 'GET', url: '/api/jobs?id=42', headers: { authorization: admin } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/valid id/);
  });

  it("runs a kind's own concurrency at once when it is above the engine's", async () => {
    wide.released = new Promise<void>((r) => (wide.release = r));
    const rows = await Promise.all([1, 2, 3].map(() => engine().enqueue('test.wide', {})));
    const end = Date.now() + 15_000;
    while (wide.running < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    wide.release();
    for (const r of rows) expect((await engine().waitFor(r.id, 20_000)).state).toBe('completed');
    expect(wide.most).toBe(3);
  }, 40_000);

  it('refuses a payload its schema rejects', async () => {
    await expect(engine().enqueue('test.echo', { n: 'x' })).rejects.toThrow(/Invalid payload/);
  });

  it('retries a failing job with backoff until it succeeds', async () => {
    const row = await engine().enqueue('test.flaky', { failTimes: 2 });
    const done = await engine().waitFor(row.id, 40_000);
    expect(done.state).toBe('completed');
    expect(done.attempts).toBe(3);
    expect(done.result).toEqual({ attempt: 3 });
  }, 45_000);

  it('fails a job for good once its retries are spent, with the error', async () => {
    const row = await engine().enqueue('test.flaky', { failTimes: 5 });
    const done = await engine().waitFor(row.id, 40_000);
    expect(done.state).toBe('failed');
    expect(done.attempts).toBe(3);
    expect(done.error).toBe('Attempt 3 failed on purpose');
  }, 45_000);

  it('waits the retry out as long as the failure asks, past the back-off, within the retry limit', async () => {
    const t0 = Date.now();
    const row = await engine().enqueue('test.later', { failTimes: 1, afterSeconds: 5 });
    for (let i = 0; i < 100 && !(await t.c.repos.jobs.find(row.id))?.error; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await t.c.repos.jobs.find(row.id)).toMatchObject({ state: 'queued', error: 'Busy: retry after 5 s' });
    const done = await engine().waitFor(row.id, 20_000);
    expect(done).toMatchObject({ state: 'completed', attempts: 2, result: { attempt: 2 } });
    // The policy alone retries after 1 s.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(5000);

    const spent = await engine().enqueue('test.later', { failTimes: 5, afterSeconds: 2 });
    const failed = await engine().waitFor(spent.id, 30_000);
    expect(failed).toMatchObject({ state: 'failed', attempts: 3, error: 'Busy: retry after 2 s' });
  }, 45_000);

  it('times a job out', async () => {
    const row = await engine().enqueue('test.slow', { ms: 60_000 });
    const done = await engine().waitFor(row.id, 20_000);
    expect(done.state).toBe('failed');
    expect(done.error).toBe('Timed out after 2 s');
    expect((done.progress as { done: number }).done).toBeGreaterThan(1);
  }, 25_000);

  it('cancels a running job through the API, and refuses to cancel it again', async () => {
    const row = await engine().enqueue('test.slow', { ms: 1_500 });
    for (let i = 0; i < 100 && (await t.c.repos.jobs.find(row.id))?.state !== 'running'; i++)
      await new Promise((r) => setTimeout(r, 50));
    const res = await t.inject({
      method: 'POST',
      url: `/api/jobs/${row.id}/cancel`,
      headers: { authorization: serversOnly },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.cancelRequested).toBe(true);
    const done = await engine().waitFor(row.id, 10_000);
    expect(done.state).toBe('cancelled');
    const again = await t.inject({
      method: 'POST',
      url: `/api/jobs/${row.id}/cancel`,
      headers: { authorization: serversOnly },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(`Job #${done.jobNo} has already finished (cancelled)`);
  }, 15_000);

  it('a cancelled job reads Cancelled only once the step it had in flight has ended and been recorded', async () => {
    const row = await engine().enqueue('test.inflight', {});
    for (let i = 0; i < 100 && !inflight.started; i++) await new Promise((r) => setTimeout(r, 50));
    const res = await t.inject({
      method: 'POST',
      url: `/api/jobs/${row.id}/cancel`,
      headers: { authorization: admin },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ state: 'running', stateText: 'Cancelling…' });
    const done = await engine().waitFor(row.id, 10_000);
    expect(done.state).toBe('cancelled');
    // Its step had ended (its outcome written) before the job was tidied and read Cancelled.
    expect(inflight.recorded).toBe(true);
    expect(inflight.seenByStopped).toBe(true);
  }, 15_000);

  it('shows and cancels a job only for holders of its area', async () => {
    const row = await engine().enqueue('test.slow', { ms: 200 });
    expect((await getJob(row.id, domainsOnly)).statusCode).toBe(404);
    expect(
      (await t.inject({ method: 'POST', url: `/api/jobs/${row.id}/cancel`, headers: { authorization: domainsOnly } }))
        .statusCode,
    ).toBe(404);
    const list = await t.inject({ method: 'GET', url: '/api/jobs', headers: { authorization: domainsOnly } });
    expect(list.json().data.items.map((j: { kind: string }) => j.kind)).not.toContain('test.slow');
    expect((await getJob(row.id, serversOnly)).statusCode).toBe(200);
    await engine().waitFor(row.id);
  });

  it('allows one job of a kind per domain: a second start is a 409 naming the first', async () => {
    const first = await engine().enqueue('test.domain', { domainId, ms: 1_000 });
    await expect(engine().enqueue('test.domain', { domainId, ms: 0 })).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(
        new RegExp(`is already (queued|running) for this domain \\(job #${first.jobNo}\\)`),
      ),
    });
    const filtered = await t.inject({
      method: 'GET',
      url: `/api/jobs?domainId=${domainId}&state=active`,
      headers: { authorization: domainsOnly },
    });
    expect(filtered.json().data.items.map((j: { _id: string }) => j._id)).toEqual([first.id]);
    await engine().waitFor(first.id);
    const second = await engine().enqueue('test.domain', { domainId, ms: 0 });
    expect((await engine().waitFor(second.id)).state).toBe('completed');
  });

  it('stops at a failed step, says which, and resumes from it without redoing done steps', async () => {
    const row = await engine().enqueue('test.steps', { domainId, failAt: 'two' });
    const failed = await engine().waitFor(row.id);
    expect(failed.state).toBe('failed');
    expect(failed.error).toBe('Step two broke');
    expect(failed.steps).toEqual([
      { key: 'one', label: 'Step one', status: 'done', message: null },
      { key: 'two', label: 'Step two', status: 'failed', message: 'Step two broke' },
      { key: 'three', label: 'Step three', status: 'pending', message: null },
    ]);
    expect((await getJob(row.id)).json().data.resumable).toBe(true);
    const res = await t.inject({
      method: 'POST',
      url: `/api/jobs/${row.id}/resume`,
      headers: { authorization: admin },
    });
    expect(res.statusCode).toBe(202);
    const done = await engine().waitFor(row.id);
    expect(done.state).toBe('completed');
    expect(done.result).toEqual({ ran: ['two', 'three'] });
    expect((done.steps as { status: string }[]).map((s) => s.status)).toEqual(['done', 'done', 'done']);
  });

  it('runs a periodic job once per period however many processes schedule it', async () => {
    // Three tickers in the same period (as three processes would be): pg-boss's singleton slot keeps one job.
    for (let i = 0; i < 3; i++) engine().schedule('servers.health-check', 60);
    let rows: { _id: string; state: string; result: unknown }[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await t.inject({
        method: 'GET',
        url: '/api/jobs?kind=servers.health-check',
        headers: { authorization: serversOnly },
      });
      rows = res.json().data.items;
      if (rows.length && rows.every((r) => r.state === 'completed')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500));
    const res = await t.inject({
      method: 'GET',
      url: '/api/jobs?kind=servers.health-check',
      headers: { authorization: serversOnly },
    });
    rows = res.json().data.items;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ state: 'completed', result: { servers: 0, online: 0, offline: 0, skipped: 0 } });
  });

  it('answers 404 for an unknown job and 400 for a bad id or filter', async () => {
    expect((await getJob('00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await getJob('nope')).statusCode).toBe(400);
    const bad = await t.inject({ method: 'GET', url: '/api/jobs?state=weird', headers: { authorization: admin } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('jobs whose worker is gone (decision 039)', () => {
  /** A job left "running" by a worker that died: its heartbeat is a minute old and its pg-boss job is stale. */
  const orphan = async (kind: string, payload: Record<string, unknown>) => {
    const row = await t.c.repos.jobs.insert({
      kind,
      area: 'cnv:domains',
      payload,
      state: 'running',
      attempts: 1,
      bossId: crypto.randomUUID(),
      worker: 'gone:1',
      heartbeatAt: new Date(Date.now() - 60_000),
      startedAt: new Date(Date.now() - 60_000),
    });
    return row;
  };

  it('is taken back and finishes, instead of staying running until its expiry', async () => {
    const row = await orphan('test.echo', { n: 1 });
    await engine().takeBackSilent();
    const done = await engine().waitFor(row.id, 30_000);
    expect(done.state).toBe('completed');
    expect(done.attempts).toBe(2);
  });

  it('a periodic job taken back does not run beside the next one scheduled (issue 42)', async () => {
    periodic.released = new Promise<void>((r) => (periodic.release = r));
    // The period's job, left running by a worker that died; taken back, it runs again here (held).
    const row = await orphan('test.periodic', {});
    await t.c.repos.jobs.update(row.id, { createdBy: 'schedule' });
    await engine().takeBackSilent();
    for (let i = 0; i < 200 && !periodic.running; i++) await new Promise((r) => setTimeout(r, 50));
    expect(periodic.running).toBe(1);
    // A scheduler ticks meanwhile (the next period, or a process starting): pg-boss's slot is free, since the
    // taken-back job was sent again without it.
    engine().schedule('test.periodic', 60);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(periodic.most).toBe(1);
    const all = (await t.c.database.db.execute(
      sql`select count(*)::int as n from jobs where kind = 'test.periodic'`,
    )) as unknown as { rows: { n: number }[] };
    expect(all.rows[0]!.n).toBe(1);
    periodic.release();
    expect((await engine().waitFor(row.id, 30_000)).state).toBe('completed');
  });

  it('is cancelled at once by Cancel', async () => {
    const row = await orphan('test.echo', { n: 2 });
    const res = await t.inject({
      method: 'POST',
      url: `/api/jobs/${row.id}/cancel`,
      headers: { authorization: admin },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ state: 'cancelled', stateText: 'Cancelled' });
  });
});
