import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { domains } from './domains.ts';

export const JOB_STATES = ['queued', 'running', 'completed', 'completed_with_failures', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/**
 * Our mirror of every durable job: pg-boss (schema pgboss) owns delivery, retries and expiry; this table
 * owns what people see: state, progress, steps, result or error. The partial unique index is the
 * one-job-of-a-kind-per-domain rule, held by the database when two starts race.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobNo: integer('job_no').generatedAlwaysAsIdentity().notNull(),
    kind: text('kind').notNull(),
    /** The permission rule of the area the job works on; it decides who sees and cancels it. */
    area: text('area').notNull(),
    domainId: uuid('domain_id').references(() => domains.id, { onDelete: 'set null' }),
    domainName: text('domain_name'),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    state: text('state', { enum: JOB_STATES }).notNull().default('queued'),
    progress: jsonb('progress').$type<Record<string, unknown>>(),
    steps: jsonb('steps').$type<Record<string, unknown>[]>(),
    result: jsonb('result').$type<Record<string, unknown>>(),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    bossId: uuid('boss_id'),
    cancelRequested: boolean('cancel_requested').notNull().default(false),
    worker: text('worker'),
    /** Written by the worker while the job runs; a running job whose heartbeat is old lost its worker. */
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }),
    createdBy: text('created_by'),
    /** A run the schedule started (housekeeping), not an operator: left out of the Jobs screen by default. */
    periodic: boolean('periodic').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('jobs_job_no_uq').on(t.jobNo),
    index('jobs_domain_idx').on(t.domainId, t.jobNo),
    index('jobs_state_idx').on(t.state, t.jobNo),
    index('jobs_periodic_no_idx').on(t.periodic, t.jobNo),
    index('jobs_running_heartbeat_idx')
      .on(t.heartbeatAt)
      .where(sql`${t.state} = 'running'`),
    uniqueIndex('jobs_one_active_per_domain_uq')
      .on(t.kind, t.domainId)
      .where(sql`${t.state} in ('queued', 'running') and ${t.domainId} is not null`),
  ],
);
