import os from 'node:os';
import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import type { JobProgress, JobStep } from '@fleetdesk/contract';
import { jobSentence, tallyOf, terminalStateOf } from '@fleetdesk/contract';
import type { Database } from '../db/client.ts';
import { isUniqueViolation, untilConnected } from '../db/pg-errors.ts';
import { ConflictError, ValidationError } from '../http/errors.ts';
import type { JobRow, JobsRepository } from '../modules/jobs/jobs.repository.ts';
import {
  kindLabel,
  PermanentJobError,
  RetryLaterError,
  type JobContext,
  type JobDefinition,
  type JobEngine,
  type StartOptions,
} from '../lib/jobs.ts';
import type { JobRegistry } from './registry.ts';

export type JobEngineOptions = {
  /** Run handlers in this process (the API by default, and `npm run worker`). */
  workers: boolean;
  /** Jobs of one kind this process runs at once. */
  concurrency: number;
  pollingIntervalSeconds: number;
  /** How often pg-boss looks for expired jobs (a crashed worker's job comes back after its expiry). */
  maintenanceIntervalSeconds: number;
  /** How long past a job's own timeout pg-boss waits before it takes the job back from a silent worker. */
  expireGraceSeconds: number;
  /** How often this process mirrors pg-boss's verdict onto jobs whose worker died for good. */
  reconcileIntervalSeconds: number;
  progressThrottleMs: number;
  /** How often a worker writes the heartbeat of each job it runs (and looks for silent jobs of others). */
  heartbeatSeconds: number;
  /**
   * A running job whose heartbeat is this old lost its worker (SIGKILL, power loss): it is taken back and
   * queued again, whatever its pg-boss expiry (decision 039).
   */
  takeoverSeconds: number;
};

export const DEFAULT_ENGINE_OPTIONS: JobEngineOptions = {
  workers: true,
  concurrency: 2,
  pollingIntervalSeconds: 2,
  maintenanceIntervalSeconds: 30,
  expireGraceSeconds: 60,
  reconcileIntervalSeconds: 30,
  progressThrottleMs: 500,
  heartbeatSeconds: 10,
  takeoverSeconds: 45,
};

type Logger = {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
};

export type { StartOptions };

class JobCancelled extends Error {
  constructor() {
    super('Cancelled');
  }
}
class JobTimedOut extends Error {}
/** Another process took the job back (this worker was silent too long): this delivery writes nothing more. */
class JobTakenOver extends Error {
  constructor() {
    super('The job was taken back by another worker');
  }
}
/** The process is shutting down: the job goes back to the queue and resumes from its first unfinished step. */
class JobInterrupted extends Error {
  constructor() {
    super('The worker shut down; the job resumes on the next worker');
  }
}

/**
 * How long a cancelled job waits for the steps already in flight (a provider call under way) before it reads
 * Cancelled: their outcome is recorded, so nothing changed at a provider is later counted as not changed.
 */
const CANCEL_SETTLE_MS = 30_000;
/** Resolves when `p` settles, or after `ms`, whichever comes first. */
async function settledWithin(p: Promise<unknown>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((r) => (timer = setTimeout(r, ms))),
  ]);
  clearTimeout(timer);
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

/** The 409 of a second job of a kind on a domain: names the job in words and, for clients, in `data`. */
function runningConflict(kind: string, active: JobRow | undefined) {
  const err = new ConflictError(
    active
      ? `${kindLabel(kind)} is already ${active.state} for this domain (job #${active.jobNo})`
      : `${kindLabel(kind)} is already running for this domain`,
    undefined,
    'job_running',
  );
  if (active) err.envelope = { data: { jobId: active.id, jobNo: active.jobNo } };
  return err;
}

/**
 * The durable job engine: pg-boss (schema pgboss, in the same database) delivers each job to exactly one
 * worker, retries with backoff and takes back jobs of crashed workers after their expiry; our `jobs` table
 * mirrors state, progress, steps and result for the web. See decision record 022.
 */
export function createJobEngine(deps: {
  database: Database;
  repo: JobsRepository;
  registry: JobRegistry;
  options?: Partial<JobEngineOptions>;
  log?: Logger;
}) {
  const { repo, registry } = deps;
  const opts = { ...DEFAULT_ENGINE_OPTIONS, ...deps.options };
  const log: Logger = deps.log ?? { info() {}, warn() {}, error() {} };
  const workerName = `${os.hostname()}:${process.pid}`;
  let boss: PgBoss | null = null;
  /** Set while stopping: no step starts, and interrupted jobs are handed back through this instance. */
  let stoppingBoss: PgBoss | null = null;
  let reconcileTimer: NodeJS.Timeout | null = null;
  let takeoverTimer: NodeJS.Timeout | null = null;
  const periodicTimers: NodeJS.Timeout[] = [];
  const running = new Map<string, AbortController>();

  // The job's own bookkeeping outlives a lost connection: it waits with back-off and writes once it is back
  // (each such write is conditional or absolute, so writing it twice changes nothing).
  const durable = <T>(fn: () => Promise<T>) =>
    untilConnected(fn, {
      onRetry: (err, delayMs) =>
        log.warn({ err: { message: messageOf(err) }, delayMs }, 'database connection lost; the job waits for it'),
    });

  const mustBoss = () => {
    if (!boss) throw new Error('The job engine is not started');
    return boss;
  };
  const definition = (kind: string) => {
    const def = registry.get(kind);
    if (!def) throw new ValidationError(`Unknown job kind ${kind}`);
    return def;
  };
  const queueOptions = (def: JobDefinition) => ({
    retryLimit: def.retry.limit,
    retryDelay: def.retry.delaySeconds,
    retryBackoff: def.retry.backoff,
    expireInSeconds: def.timeoutSeconds + opts.expireGraceSeconds,
  });

  /**
   * Processes starting together create the same queues at once: pg-boss's create can then deadlock or meet the
   * other's row (issue 42). The loser looks again shortly, by when the winner's queue exists.
   */
  async function ensureQueue(b: PgBoss, def: JobDefinition) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await ensureQueueOnce(b, def);
      } catch (err) {
        if (attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 200 * attempt));
      }
    }
  }

  async function ensureQueueOnce(b: PgBoss, def: JobDefinition) {
    const existing = await b.getQueue(def.kind);
    if (existing) {
      await b.updateQueue(def.kind, { name: def.kind, ...queueOptions(def) });
      return;
    }
    try {
      await b.createQueue(def.kind, { name: def.kind, policy: 'standard', ...queueOptions(def) });
    } catch (err) {
      // Another process created it between our look and our create.
      if (!(await b.getQueue(def.kind))) throw err;
    }
  }

  async function send(b: PgBoss, def: JobDefinition, jobId: string, extra: PgBoss.SendOptions = {}) {
    return b.send(def.kind, { jobId }, { ...queueOptions(def), ...extra });
  }

  /** Runs one delivery of a job; throws to make pg-boss retry (or fail) it. */
  async function runDelivery(def: JobDefinition, bossJob: PgBoss.Job<{ jobId?: string }>) {
    const jobId = bossJob.data?.jobId;
    if (!jobId) return { skipped: 'no job id' };
    const before = await durable(() => repo.find(jobId));
    // A duplicate delivery of a finished job, or one cancelled while queued: nothing to do.
    if (!before || !['queued', 'running'].includes(before.state)) return { skipped: before?.state ?? 'missing' };
    if (before.bossId && before.bossId !== bossJob.id) return { skipped: 'superseded' };
    const row = await durable(() =>
      repo.transition(jobId, ['queued', 'running'], {
        state: 'running',
        attempts: before.attempts + 1,
        startedAt: before.startedAt ?? new Date(),
        worker: workerName,
        error: null,
      }),
    );
    if (!row) return { skipped: 'moved' };
    if (row.cancelRequested) {
      await finishCancelled(row, def);
      return { cancelled: true };
    }
    const myBossId = bossJob.id;
    await durable(() => repo.heartbeat(jobId, myBossId));

    const ac = new AbortController();
    running.set(jobId, ac);
    let steps: JobStep[] = (row.steps as JobStep[] | null) ?? [];
    let lastWrite = 0;
    let pending: JobProgress | null = null;
    const write = async (p: JobProgress | null) => {
      lastWrite = Date.now();
      const r = await durable(() => repo.progress(jobId, { ...(p ? { progress: p } : {}), steps }));
      if (r?.cancelRequested) ac.abort(new JobCancelled());
    };
    const cancelPoll = setInterval(() => {
      void repo
        .cancelRequested(jobId)
        .then((c) => c && ac.abort(new JobCancelled()))
        .catch(() => undefined);
    }, 1000);
    // The heartbeat says this worker lives; a job taken back meanwhile stops here without writing more.
    const heartbeat = setInterval(() => {
      void repo
        .heartbeat(jobId, myBossId)
        .then((r) => {
          if (!r) ac.abort(new JobTakenOver());
          else if (r.cancelRequested) ac.abort(new JobCancelled());
        })
        .catch(() => undefined);
    }, opts.heartbeatSeconds * 1000);
    const timeout = setTimeout(
      () => ac.abort(new JobTimedOut(`Timed out after ${def.timeoutSeconds} s`)),
      def.timeoutSeconds * 1000,
    );
    const throwIfAborted = () => {
      if (ac.signal.aborted) throw ac.signal.reason;
    };
    const setStep = async (key: string, patch: Partial<JobStep>) => {
      steps = steps.map((s) => (s.key === key ? { ...s, ...patch } : s));
      await write(pending);
    };

    const ctx: JobContext<unknown> = {
      jobId,
      payload: row.payload,
      attempt: row.attempts,
      signal: ac.signal,
      previous: row,
      async progress(p, o = {}) {
        throwIfAborted();
        pending = p;
        if (o.force || Date.now() - lastWrite >= opts.progressThrottleMs) await write(p);
        throwIfAborted();
      },
      async step(key, run) {
        throwIfAborted();
        // A shutting-down worker finishes the step in flight but starts no other.
        if (stoppingBoss) throw new JobInterrupted();
        const s = steps.find((x) => x.key === key);
        if (s && (s.status === 'done' || s.status === 'skipped')) return undefined;
        await setStep(key, { status: 'running', message: null });
        try {
          const out = await run();
          await setStep(key, { status: 'done', message: null });
          return out;
        } catch (err) {
          // A cancelled or interrupted step did not fail: it runs again if the job does.
          const cancelled =
            err instanceof JobInterrupted ||
            (ac.signal.aborted &&
              (ac.signal.reason instanceof JobCancelled || ac.signal.reason instanceof JobInterrupted));
          await setStep(key, { status: cancelled ? 'pending' : 'failed', message: cancelled ? null : messageOf(err) });
          throw err;
        }
      },
    };

    let handling: ReturnType<typeof def.handler> | undefined;
    try {
      const aborted = new Promise<never>((_, reject) => {
        ac.signal.addEventListener('abort', () => reject(ac.signal.reason), { once: true });
      });
      handling = def.handler(ctx);
      const result = await Promise.race([handling, aborted]);
      // One rule for the end state (outcomes.ts): a result that counts failures is never a plain "completed".
      const tally = tallyOf(result);
      const state = tally ? terminalStateOf(tally) : 'completed';
      await durable(() =>
        repo.transitionOwned(jobId, myBossId, ['running'], {
          state,
          result,
          ...(pending ? { progress: pending } : {}),
          steps: steps.length ? steps : null,
          finishedAt: new Date(),
          error: state === 'failed' ? jobSentence({ kind: def.kind, state, result, error: null }) : null,
        }),
      );
      return result;
    } catch (err) {
      if (err instanceof JobTakenOver || (ac.signal.aborted && ac.signal.reason instanceof JobTakenOver))
        return { superseded: true };
      const interrupted =
        err instanceof JobInterrupted || (ac.signal.aborted && ac.signal.reason instanceof JobInterrupted);
      if (interrupted && stoppingBoss) {
        await requeueInterrupted(stoppingBoss, def, jobId, steps, pending);
        return { interrupted: true };
      }
      if (err instanceof JobCancelled || (ac.signal.aborted && ac.signal.reason instanceof JobCancelled)) {
        // The handler stops at its next check of the signal; what it has in flight finishes and is recorded
        // first (a fleet step whose change was made reads done, not cancelled and then "already matched").
        if (handling) await settledWithin(handling, CANCEL_SETTLE_MS);
        const now = await repo.find(jobId);
        if (now) await finishCancelled({ ...now, steps }, def);
        return { cancelled: true };
      }
      const message = messageOf(err);
      const meta = bossJob as { retryCount?: number; retryLimit?: number };
      const permanent = err instanceof PermanentJobError;
      const retriesLeft = !permanent && (meta.retryLimit ?? def.retry.limit) - (meta.retryCount ?? 0) > 0;
      if (err instanceof RetryLaterError && retriesLeft) {
        const later = await retryLater(def, jobId, myBossId, meta, err, steps, pending);
        if (later) return later;
      }
      await durable(() =>
        repo.transitionOwned(jobId, myBossId, ['running'], {
          // Waiting for pg-boss's retry shows as queued, with the last error beside it.
          state: retriesLeft ? 'queued' : 'failed',
          error: message,
          ...(pending ? { progress: pending } : {}),
          steps: steps.length ? steps : null,
          finishedAt: retriesLeft ? null : new Date(),
        }),
      );
      // A permanent failure completes the pg-boss job, so that it is not retried.
      if (permanent) return { failed: message };
      throw err instanceof Error ? err : new Error(message);
    } finally {
      clearInterval(cancelPoll);
      clearInterval(heartbeat);
      clearTimeout(timeout);
      running.delete(jobId);
    }
  }

  /**
   * Runs a delivery and records its end in pg-boss here, waiting out a lost connection: pg-boss's own record of
   * it is sent without being awaited or retried, and lost with the connection it would leave the job active
   * until its expiry (a day for a fleet run) while no worker runs it. pg-boss's own statement that follows
   * then changes nothing (it completes only a job still active).
   */
  async function deliver(b: PgBoss, def: JobDefinition, job: PgBoss.Job<{ jobId?: string }>) {
    let result: unknown;
    try {
      result = await runDelivery(def, job);
    } catch (err) {
      try {
        await durable(() => b.fail(def.kind, job.id, err instanceof Error ? { message: err.message } : { err }));
      } catch {
        throw err;
      }
      return undefined;
    }
    await durable(() => b.complete(def.kind, job.id, result as object)).catch(() => undefined);
    return result;
  }

  /**
   * A failure that asks for a later retry than pg-boss's back-off would make (whose least wait is delay·2^count):
   * the job goes back to queued under a new pg-boss job that starts then, with the retries and back-off left.
   * Answers null when the back-off already waits long enough.
   */
  async function retryLater(
    def: JobDefinition,
    jobId: string,
    myBossId: string,
    meta: { retryCount?: number; retryLimit?: number },
    err: RetryLaterError,
    steps: JobStep[],
    pending: JobProgress | null,
  ) {
    const b = boss ?? stoppingBoss;
    const count = meta.retryCount ?? 0;
    const factor = def.retry.backoff ? 2 ** count : 1;
    if (!b || err.afterSeconds <= def.retry.delaySeconds * factor) return null;
    const bossId = randomUUID();
    const row = await repo.transitionOwned(jobId, myBossId, ['running'], {
      state: 'queued',
      bossId,
      worker: null,
      error: err.message,
      ...(pending ? { progress: pending } : {}),
      steps: steps.length ? steps : null,
      finishedAt: null,
    });
    if (!row) return { superseded: true };
    await send(b, def, jobId, {
      id: bossId,
      startAfter: Math.ceil(err.afterSeconds),
      retryLimit: (meta.retryLimit ?? def.retry.limit) - count - 1,
      retryDelay: def.retry.delaySeconds * (def.retry.backoff ? factor * 2 : 1),
    });
    return { retryAfter: err.afterSeconds };
  }

  /**
   * A job stopped by shutdown: back to queued under a new pg-boss job (this delivery completes without using a
   * retry), keeping its done steps, so another worker resumes it.
   */
  async function requeueInterrupted(
    b: PgBoss,
    def: JobDefinition,
    jobId: string,
    steps: JobStep[],
    pending: JobProgress | null,
  ) {
    const bossId = randomUUID();
    const row = await repo.transition(jobId, ['running'], {
      state: 'queued',
      bossId,
      worker: null,
      error: null,
      ...(pending ? { progress: pending } : {}),
      steps: steps.length ? steps : null,
    });
    if (row) await send(b, def, jobId, { id: bossId });
    log.info({ jobId, kind: def.kind }, 'job handed back to the queue at shutdown');
  }

  /**
   * Ends a job as cancelled; its kind first tidies up what it owns (no step of it left running) and says what was
   * done before (its result), so a job that reads "Cancelled" never has a step still running. Tidying is
   * idempotent: a job ended meanwhile elsewhere is tidied once more and left as it is.
   */
  async function finishCancelled(row: JobRow, def: JobDefinition | undefined) {
    const now = await repo.find(row.id);
    if (!now || !['queued', 'running'].includes(now.state)) return;
    await afterCancelled(row, def);
    await repo.transition(row.id, ['queued', 'running'], {
      state: 'cancelled',
      finishedAt: new Date(),
      steps: row.steps,
      error: null,
    });
  }
  async function afterCancelled(row: Pick<JobRow, 'id' | 'payload'>, def: JobDefinition | undefined) {
    try {
      const result = await def?.stopped?.(row.payload);
      if (result) await repo.update(row.id, { result });
    } catch (err) {
      log.warn({ jobId: row.id, err: { message: messageOf(err) } }, 'tidying up a cancelled job failed');
    }
  }

  /**
   * Takes back running jobs whose worker went silent (killed, powered off): queued again under a new pg-boss
   * job (the old one is cancelled, so it never comes back at its expiry), keeping their done steps; a job whose
   * cancel was asked for ends cancelled instead. Any process with workers does this; the update is
   * conditional, so only one of them wins each job.
   */
  async function takeBackSilent(seconds = opts.takeoverSeconds) {
    const b = boss;
    if (!b) return;
    for (const row of await repo.silent(seconds)) {
      if (running.has(row.id)) continue;
      const def = registry.get(row.kind);
      if (!def) continue;
      const steps = ((row.steps as JobStep[] | null) ?? null)?.map((s) =>
        s.status === 'running' ? { ...s, status: 'pending' as const, message: null } : s,
      );
      if (row.cancelRequested) {
        const moved = await repo.takeBack(row.id, row.bossId, seconds, {
          state: 'cancelled',
          finishedAt: new Date(),
          steps,
          worker: null,
        });
        if (!moved) continue;
        if (row.bossId) await b.cancel(row.kind, row.bossId).catch(() => undefined);
        await afterCancelled(row, def);
        log.warn({ jobId: row.id, kind: row.kind }, 'cancelled job of a silent worker ended');
        continue;
      }
      const bossId = randomUUID();
      const moved = await repo.takeBack(row.id, row.bossId, seconds, {
        state: 'queued',
        bossId,
        worker: null,
        steps,
        error: null,
      });
      if (!moved) continue;
      if (row.bossId) await b.cancel(row.kind, row.bossId).catch(() => undefined);
      await send(b, def, row.id, { id: bossId });
      log.warn({ jobId: row.id, kind: row.kind, worker: row.worker }, 'job of a silent worker taken back');
    }
  }

  /** Mirrors pg-boss's verdict onto jobs whose worker died and whose retries are spent (or lost). */
  async function reconcile() {
    const b = boss;
    if (!b) return;
    const stale = await repo.stale(new Date(Date.now() - opts.reconcileIntervalSeconds * 1000));
    for (const row of stale) {
      if (running.has(row.id) || !row.bossId) continue;
      const bj = await b.getJobById(row.kind, row.bossId).catch(() => null);
      if (!bj) {
        if (row.state === 'queued' && Date.now() - row.updatedAt.getTime() < 60_000) continue;
        await repo.transition(row.id, ['queued', 'running'], {
          state: 'failed',
          error: 'The job was lost by the queue',
          finishedAt: new Date(),
        });
      } else if (bj.state === 'failed') {
        const out = bj.output as { message?: string; value?: { message?: string } } | null;
        await repo.transition(row.id, ['queued', 'running'], {
          state: 'failed',
          error: out?.message ?? out?.value?.message ?? 'The worker stopped and no retries are left',
          finishedAt: new Date(),
        });
      } else if (bj.state === 'cancelled') {
        await finishCancelled(row, registry.get(row.kind));
      } else if (bj.state === 'completed' && row.state === 'running') {
        // Completed in pg-boss without our write: the handler's own result was lost with its process.
        await repo.transition(row.id, ['running'], {
          state: 'failed',
          error: 'The worker stopped before it recorded the result',
          finishedAt: new Date(),
        });
      }
    }
  }

  const engine = {
    options: opts,
    workerName,
    registry,

    async start() {
      if (boss) return;
      const open = () => {
        const nb = new PgBoss({
          db: deps.database.bossDb as PgBoss.Db,
          schema: 'pgboss',
          migrate: true,
          supervise: true,
          schedule: false,
          maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds,
          archiveCompletedAfterSeconds: 7 * 24 * 3600,
          deleteAfterDays: 30,
        });
        nb.on('error', (err) => log.error({ err: { message: messageOf(err) } }, 'job queue error'));
        return nb;
      };
      // Processes starting together on a fresh database install pg-boss's schema at once, and all but one fail
      // on the other's CREATE SCHEMA (issue 42): those start again with a new instance, and find it installed.
      let b = open();
      for (let attempt = 1; ; attempt++) {
        try {
          await b.start();
          break;
        } catch (err) {
          await b.stop({ graceful: false, close: false, wait: false }).catch(() => undefined);
          if (attempt >= 5) throw err;
          await new Promise((r) => setTimeout(r, 100 + Math.random() * 300 * attempt));
          b = open();
        }
      }
      boss = b;
      for (const def of registry.all()) await ensureQueue(b, def);
      if (opts.workers) {
        for (const def of registry.all()) {
          for (let i = 0; i < Math.max(1, def.concurrency ?? opts.concurrency); i++) {
            await b.work<{ jobId?: string }>(
              def.kind,
              { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: opts.pollingIntervalSeconds },
              async ([job]) => (job ? deliver(b, def, job) : undefined),
            );
          }
        }
        reconcileTimer = setInterval(() => {
          reconcile().catch((err) => log.warn({ err: { message: messageOf(err) } }, 'job reconcile failed'));
        }, opts.reconcileIntervalSeconds * 1000);
        reconcileTimer.unref();
        const sweep = () =>
          void takeBackSilent().catch((err) =>
            log.warn({ err: { message: messageOf(err) } }, 'taking back silent jobs failed'),
          );
        sweep();
        takeoverTimer = setInterval(sweep, opts.heartbeatSeconds * 1000);
        takeoverTimer.unref();
      }
    },

    /**
     * Stops taking jobs. Graceful: the steps in flight finish (no new step starts; a job without steps runs to
     * its end) for up to `graceMs`; whatever still runs then is interrupted and handed back to the queue.
     */
    async stop(graceful = true, graceMs = 10_000) {
      for (const t of periodicTimers) clearInterval(t);
      periodicTimers.length = 0;
      if (reconcileTimer) clearInterval(reconcileTimer);
      reconcileTimer = null;
      if (takeoverTimer) clearInterval(takeoverTimer);
      takeoverTimer = null;
      const b = boss;
      boss = null;
      if (!b) return;
      if (!graceful) {
        for (const ac of running.values()) ac.abort(new JobCancelled());
        await b.stop({ graceful: false, close: false, wait: true, timeout: 1_000 });
        return;
      }
      stoppingBoss = b;
      for (const def of registry.all()) await b.offWork(def.kind).catch(() => undefined);
      const until = Date.now() + graceMs;
      while (running.size && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      for (const ac of running.values()) ac.abort(new JobInterrupted());
      // The interrupted handlers hand their jobs back; give those writes a moment.
      const settle = Date.now() + 3_000;
      while (running.size && Date.now() < settle) await new Promise((r) => setTimeout(r, 25));
      await b.stop({ graceful: true, close: false, wait: true, timeout: 1_000 });
      stoppingBoss = null;
    },

    /**
     * Queues a job: checks its payload, records it, hands it to pg-boss. A second active job of the same
     * kind on the same domain is a 409 that names the first.
     */
    async enqueue(kind: string, payload: unknown, o: StartOptions = {}): Promise<JobRow> {
      mustBoss();
      const def = definition(kind);
      const parsed = def.payload.safeParse(payload);
      if (!parsed.success) throw new ValidationError(`Invalid payload for ${kind}: ${parsed.error.issues[0]?.message}`);
      const p = parsed.data;
      const domainId = def.domainOf?.(p) ?? null;
      const steps = def.steps?.(p).map((s) => ({ ...s, status: 'pending' as const, message: null })) ?? null;
      let row: JobRow;
      try {
        row = await repo.insert({
          kind,
          area: def.area,
          domainId,
          domainName: o.domainName ?? null,
          payload: p as Record<string, unknown>,
          state: 'queued',
          steps,
          createdBy: o.createdBy ?? null,
        });
      } catch (err) {
        if (domainId && isUniqueViolation(err)) {
          throw runningConflict(kind, await repo.findActive(kind, domainId));
        }
        throw err;
      }
      return engine.dispatch(def, row);
    },

    /** Hands a recorded job to pg-boss; a failure to do so fails the record rather than leaving it queued. */
    async dispatch(def: JobDefinition, row: JobRow, extra: PgBoss.SendOptions = {}): Promise<JobRow> {
      const b = mustBoss();
      const bossId = randomUUID();
      try {
        await repo.update(row.id, { bossId });
        const sent = await send(b, def, row.id, { ...extra, id: bossId });
        if (!sent) {
          await repo.remove(row.id);
          return { ...row, state: 'cancelled' };
        }
      } catch (err) {
        await repo.update(row.id, {
          state: 'failed',
          error: `Could not queue the job: ${messageOf(err)}`,
          finishedAt: new Date(),
        });
        throw err;
      }
      return (await repo.find(row.id)) ?? row;
    },

    /**
     * Cancels a job: a queued one at once, a running one by signalling its handler (which stops at its next
     * check and leaves done steps done).
     */
    async cancel(row: JobRow): Promise<JobRow> {
      const b = mustBoss();
      if (!['queued', 'running'].includes(row.state))
        throw new ConflictError(`Job #${row.jobNo} has already finished (${row.state})`, undefined, 'job_finished');
      const queued = await repo.transition(row.id, ['queued'], {
        state: 'cancelled',
        cancelRequested: true,
        finishedAt: new Date(),
      });
      if (queued) {
        if (row.bossId) await b.cancel(row.kind, row.bossId).catch(() => undefined);
        await afterCancelled(queued, registry.get(row.kind));
        return (await repo.find(row.id)) ?? queued;
      }
      const asked = await repo.transition(row.id, ['running'], { cancelRequested: true });
      // At once, whoever holds the job (a live worker, a dead one, the next after a takeover): nothing new starts.
      if (asked) await registry.get(row.kind)?.cancelling?.(row.payload);
      const here = running.get(row.id);
      here?.abort(new JobCancelled());
      // A worker that misses its heartbeats for a while is gone: nobody would see the request, so end it here.
      if (!here) {
        await takeBackSilent(opts.heartbeatSeconds * 3);
        const now = await repo.find(row.id);
        if (now) return now;
      }
      return asked ?? (await repo.find(row.id))!;
    },

    /** Queues a failed or cancelled job of a resumable kind again; its done steps are not redone. */
    async resume(row: JobRow): Promise<JobRow> {
      const def = definition(row.kind);
      if (!def.resumable) throw new ConflictError(`${kindLabel(row.kind)} jobs cannot be resumed`);
      if (!['failed', 'cancelled'].includes(row.state))
        throw new ConflictError(`Job #${row.jobNo} is ${row.state}; only a failed or cancelled job can be resumed`);
      await def.beforeResume?.(row.payload);
      let again: JobRow | undefined;
      try {
        again = await repo.transition(row.id, ['failed', 'cancelled'], {
          state: 'queued',
          cancelRequested: false,
          error: null,
          finishedAt: null,
          steps: ((row.steps as JobStep[] | null) ?? null)?.map((s) =>
            s.status === 'failed' || s.status === 'running' ? { ...s, status: 'pending' as const, message: null } : s,
          ),
        });
      } catch (err) {
        if (row.domainId && isUniqueViolation(err)) {
          throw runningConflict(row.kind, await repo.findActive(row.kind, row.domainId));
        }
        throw err;
      }
      if (!again) throw new ConflictError(`Job #${row.jobNo} changed meanwhile; reload and try again`);
      return engine.dispatch(def, again);
    },

    /**
     * Starts `kind` every `minutes` in every process that calls this; pg-boss's singleton slot (one job per
     * kind and period) makes it run once per period however many processes there are, and none starts while
     * one of the kind is still queued or running (decision 063).
     */
    schedule(kind: string, minutes: number) {
      if (!(minutes > 0)) return;
      const def = definition(kind);
      const seconds = Math.round(minutes * 60);
      const tick = async () => {
        const b = boss;
        if (!b) return;
        // A job of the kind still queued or running (one taken back from a silent worker no longer holds
        // pg-boss's slot) means no new one: a period never runs two side by side.
        const row = await repo.insertUnlessActive({
          kind,
          area: def.area,
          payload: {},
          state: 'queued',
          createdBy: 'schedule',
          periodic: true,
        });
        if (!row) return;
        await engine.dispatch(def, row, { singletonKey: kind, singletonSeconds: seconds });
      };
      const run = () =>
        void tick().catch((err) => log.warn({ err: { message: messageOf(err) }, kind }, 'periodic job not queued'));
      run();
      const t = setInterval(run, seconds * 1000);
      t.unref();
      periodicTimers.push(t);
    },

    reconcile,
    takeBackSilent,
    /** Waits until a job is finished (for tests and the CLI); bounded by `timeoutMs`. */
    async waitFor(jobId: string, timeoutMs = 30_000): Promise<JobRow> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const r = await repo.find(jobId);
        if (r && ['completed', 'completed_with_failures', 'failed', 'cancelled'].includes(r.state)) return r;
        if (Date.now() > until) throw new Error(`Job ${jobId} did not finish within ${timeoutMs} ms (${r?.state})`);
        await new Promise((res) => setTimeout(res, 100));
      }
    },
  };
  return engine satisfies JobEngine;
}
/** The engine as the container holds it: the modules' interface (lib/jobs.ts) and the process's own controls. */
export type RunningJobEngine = ReturnType<typeof createJobEngine>;
