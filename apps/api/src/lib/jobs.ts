/**
 * What the modules know of the job engine: how a kind is defined (its handler's context, its errors) and how a job
 * is started, cancelled or resumed. The engine (jobs/engine.ts) and the registry of kinds (jobs/kinds) sit above
 * the modules and implement this; the modules name only this file (issue 41, decision 074).
 */
import type { z } from 'zod';
import type { JobProgress, Rule } from '@fleetdesk/contract';
import { JOB_KIND_LABELS } from '@fleetdesk/contract';
import type { jobs } from '../db/schema/jobs.ts';

/** What a handler gets: its payload, a signal (cancel or timeout), and ways to report progress and steps. */
export type JobContext<P> = {
  jobId: string;
  payload: P;
  /** 1 on the first run, 2 on the first retry or after a crash, … */
  attempt: number;
  signal: AbortSignal;
  /** The job's row as this run found it: progress, steps and result of earlier attempts, for idempotence. */
  previous: JobRow;
  /** Stores progress (throttled unless `force`); throws when the job was cancelled meanwhile. */
  progress(p: JobProgress, opts?: { force?: boolean }): Promise<void>;
  /** Runs a named step once: a step already done in an earlier run is skipped. */
  step<T>(key: string, run: () => Promise<T>): Promise<T | undefined>;
};

export type RetryPolicy = {
  /** Retries after the first attempt. */
  limit: number;
  delaySeconds: number;
  /** Doubles the delay on each retry (with pg-boss's jitter). */
  backoff: boolean;
};

export type JobDefinition<P = any> = {
  kind: string;
  /** The permission rule of the area the job works on. */
  area: Rule;
  payload: z.ZodType<P>;
  /** The domain the job works on, for the one-job-of-a-kind-per-domain rule. */
  domainOf?: (p: P) => string | null;
  /** Steps shown from the start, each with its status; a failed job resumes from its failed step. */
  steps?: (p: P) => { key: string; label: string }[];
  resumable?: boolean;
  /** Before a failed or cancelled job is queued again (Resume): may put the work it belongs to back, or refuse. */
  beforeResume?: (p: P) => Promise<void>;
  /**
   * The job ended cancelled (its handler stopped, or its worker was gone): tidy up what it owns, so that nothing
   * is left running. What it returns is stored as the job's result (a `tally` counts what was done before).
   */
  stopped?: (p: P) => Promise<Record<string, unknown> | void>;
  /** A cancel was asked for while the job runs: no new work starts from now on, whichever worker holds it. */
  cancelling?: (p: P) => Promise<void>;
  retry: RetryPolicy;
  timeoutSeconds: number;
  /**
   * Jobs of this kind one process runs at once, when it is not the engine's (JOB_CONCURRENCY): a kind that must
   * run many at a time (a batch's launches) gets its own number, without every other kind polling as many times.
   */
  concurrency?: number;
  /**
   * The result is stored as the job's; a result with a `tally` (outcomes.ts) decides the end state: completed,
   * completed with failures or failed, by the one rule every screen shows.
   */
  handler: (ctx: JobContext<P>) => Promise<Record<string, unknown>>;
};

/**
 * A failure that another attempt cannot fix (a missing directory, a domain without a server): the job fails at
 * once, without pg-boss's retries.
 */
export class PermanentJobError extends Error {}

/**
 * A temporary failure that names its earliest retry (a provider's Retry-After or `retry_after`): the retry waits
 * at least `afterSeconds`, even past the policy's back-off, and still counts against its limit.
 */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly afterSeconds: number,
  ) {
    super(message);
  }
}

export const defineJob = <P>(def: JobDefinition<P>): JobDefinition<P> => def;

/** A job as the jobs table holds it. */
export type JobRow = typeof jobs.$inferSelect;

/** Labels shown for a job's kind: the contract's, else the kind itself. */
export const kindLabel = (kind: string) => JOB_KIND_LABELS[kind] ?? kind;

export type StartOptions = { createdBy?: string | null; domainName?: string | null };

/** The engine as the modules use it. */
export interface JobEngine {
  /** Queues a job of `kind` (validated by its payload schema); a second of a kind on one domain is a 409. */
  enqueue(kind: string, payload: unknown, o?: StartOptions): Promise<JobRow>;
  /** Cancels a queued or running job (the step in flight ends first). */
  cancel(row: JobRow): Promise<JobRow>;
  /** Queues a failed or cancelled job of a resumable kind again, from its failed step. */
  resume(row: JobRow): Promise<JobRow>;
  /** The kinds the engine runs. */
  readonly registry: { get(kind: string): Pick<JobDefinition, 'resumable'> | undefined };
}
