/**
 * The write stream of `bench:lists --writes N`, in a process of its own (its event loop is not autocannon's):
 * N writes a second while started, open loop, as lists.bench.ts describes. Driven over IPC:
 *   { type: 'init', oursBase, authorization, planId, jobId, targets, perSecond, maxInFlight } → { type: 'ready' }
 *   { type: 'start' } → { type: 'started' }, then { type: 'stop' } → { type: 'stopped', report }
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { openPostgres } from '../apps/api/src/db/client.ts';
import { createContainer } from '../apps/api/src/container.ts';
import { loadConfig } from '../apps/api/src/config.ts';

export type WriteTarget = { id: string; name: string; status: 'active' | 'inactive' };
export type WriteReport = { asked: number; done: number; failed: number; p99: number; seen: number; checked: number };
type Writer = {
  domainEdit(t: WriteTarget, status: WriteTarget['status']): Promise<boolean>;
  healthResult(t: WriteTarget): Promise<void>;
  fleetJobStep(t: WriteTarget, k: number): Promise<void>;
  visible(t: WriteTarget): Promise<boolean>;
};

/**
 * N writes a second until stopped, open loop: a slow write does not delay the next one (up to
 * maxInFlight; a write due while that many are in flight is asked and not done).
 */
function startWrites(perSecond: number, targets: WriteTarget[], w: Writer, maxInFlight: number) {
  const report: WriteReport = { asked: 0, done: 0, failed: 0, p99: 0, seen: 0, checked: 0 };
  const times: number[] = [];
  const running = new Set<Promise<void>>();
  let n = 0;
  const one = async (k: number) => {
    const t = targets[k % targets.length]!;
    const started = performance.now();
    try {
      const kind = k % 4;
      if (kind === 1) {
        await w.healthResult(t);
      } else if (kind === 3) {
        await w.fleetJobStep(t, k);
      } else {
        const next = t.status === 'active' ? 'inactive' : 'active';
        if (!(await w.domainEdit(t, next))) throw new Error('edit refused');
        t.status = next;
      }
      times.push(performance.now() - started);
      report.done++;
      if (kind === 0 || kind === 2) {
        report.checked++;
        if (await w.visible(t)) report.seen++;
      }
    } catch {
      report.failed++;
    }
  };
  // Asked on a schedule, not per timer tick: a tick that fires late (a busy process) sends what fell due meanwhile.
  const started = performance.now();
  const due = () => Math.floor(((performance.now() - started) / 1000) * perSecond);
  const tick = () => {
    while (report.asked < due()) {
      report.asked++;
      if (running.size >= maxInFlight) continue;
      const p = one(n++).finally(() => running.delete(p));
      running.add(p);
    }
  };
  const timer = setInterval(tick, 1000 / perSecond);
  return async (): Promise<WriteReport> => {
    clearInterval(timer);
    // What fell due since the last tick is still sent: every write of the run's schedule is asked.
    tick();
    await Promise.all(running);
    const sorted = times.sort((a, b) => a - b);
    report.p99 = sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]! : 0;
    return report;
  };
}

type Init = {
  oursBase: string;
  authorization: string;
  planId: string;
  jobId: string;
  targets: WriteTarget[];
  perSecond: number;
  maxInFlight: number;
};

async function init(m: Init) {
  const database = await openPostgres(process.env.DATABASE_URL!, { max: 8 });
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' }, { dotenv: false });
  const c = await createContainer(config, { database });
  const headers = { authorization: m.authorization };
  const { targets } = m;
  const writer: Writer = {
    async domainEdit(t, status) {
      const r = await fetch(`${m.oursBase}/api/domains/${t.id}`, {
        method: 'PATCH',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ status }),
      });
      await r.arrayBuffer();
      if (!r.ok) return false;
      // The baseline reads its own copy: the same change, so both still count the same rows.
      await database.db.execute(sql`update bench_domains set status = ${status} where id = ${t.id}`);
      return true;
    },
    async healthResult(t) {
      const state = Math.random() < 0.5 ? 'ok' : 'failing';
      await database.db.transaction((tx) =>
        c.repos.health.store(
          t.id,
          [{ check: 'registrar_expiry', state, observed: null, expected: null, reason: null }],
          new Date(),
          'cheap',
          tx,
        ),
      );
    },
    async fleetJobStep(t, k) {
      const seq = targets.indexOf(t) + 1;
      await c.repos.fleet.updateItem(m.planId, seq, {
        status: k % 8 === 3 ? 'done' : 'failed',
        error: k % 8 === 3 ? null : 'bench',
        finishedAt: new Date(),
      });
      await c.repos.jobs.progress(m.jobId, { progress: { done: k, total: targets.length } });
    },
    async visible(t) {
      const r = await fetch(`${m.oursBase}/api/domains?search=${encodeURIComponent(t.name)}&status=${t.status}`, {
        headers,
      });
      const body = (await r.json()) as { data?: { items?: { _id: string }[] } };
      return Boolean(body.data?.items?.some((d) => d._id === t.id));
    },
  };
  return { writer, m };
}

let ready: Awaited<ReturnType<typeof init>> | undefined;
let stop: (() => Promise<WriteReport>) | undefined;
process.on('message', (msg: { type: string } & Partial<Init>) => {
  void (async () => {
    if (msg.type === 'init') {
      ready = await init(msg as Init);
      process.send!({ type: 'ready' });
    } else if (msg.type === 'start') {
      stop = startWrites(ready!.m.perSecond, ready!.m.targets, ready!.writer, ready!.m.maxInFlight);
      process.send!({ type: 'started' });
    } else if (msg.type === 'stop') {
      const report = await stop!();
      process.send!({ type: 'stopped', report });
    }
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
});
process.on('disconnect', () => process.exit(0));
