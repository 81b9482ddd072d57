import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** Cloudflare requests spent per account key, shared by every process (request-budget.ts, decision 034). */
export const cloudflareBudgetSpend = pgTable(
  'cloudflare_budget_spend',
  {
    key: text('key').notNull(),
    t: bigint('t', { mode: 'number' }).notNull(),
    background: boolean('background').notNull(),
    owner: text('owner'),
  },
  (t) => [index('cloudflare_budget_spend_key_t_idx').on(t.key, t.t)],
);

/** Cloudflare requests sent per account key and minute, kept a week (a fleet run's budget chart; migration 0050). */
export const cloudflareRequestsPerMinute = pgTable(
  'cloudflare_requests_per_minute',
  {
    key: text('key').notNull(),
    minute: timestamp('minute', { withTimezone: true }).notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ name: 'cloudflare_requests_per_minute_pk', columns: [t.key, t.minute] })],
);

export const FLEET_PLAN_STATES = [
  'planning',
  'planned',
  'running',
  'paused',
  'completed',
  'completed_with_failures',
  'cancelled',
  'failed',
] as const;

/** A fleet change: the action, the selection it was planned for, and where its run stands (decision 035). */
export const fleetPlans = pgTable(
  'fleet_plans',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    planNo: integer('plan_no').generatedAlwaysAsIdentity().notNull(),
    action: jsonb('action').$type<Record<string, unknown>>().notNull(),
    selection: jsonb('selection').$type<Record<string, unknown>>().notNull(),
    state: text('state', { enum: FLEET_PLAN_STATES }).notNull().default('planning'),
    total: integer('total').notNull().default(0),
    error: text('error'),
    jobId: uuid('job_id'),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    plannedAt: timestamp('planned_at', { withTimezone: true }),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('fleet_plans_plan_no_uq').on(t.planNo)],
);

/** One domain of a plan: what planning found, and the run's step for it. */
export const fleetPlanItems = pgTable(
  'fleet_plan_items',
  {
    planId: uuid('plan_id')
      .notNull()
      .references(() => fleetPlans.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    /** Null for a name of a state file the console does not hold (a refused item). */
    domainId: uuid('domain_id'),
    domainName: text('domain_name').notNull(),
    cloudId: uuid('cloud_id'),
    cloudEmail: text('cloud_email'),
    outcome: text('outcome').notNull().default('pending'),
    before: text('before'),
    after: text('after'),
    reason: text('reason'),
    /** What planning read, compared again at run time (a change made meanwhile is not overwritten blindly). */
    seen: jsonb('seen').$type<unknown>(),
    /** A state plan's desired state of the domain (the file's entry, firewall templates resolved to ids). */
    desired: jsonb('desired').$type<unknown>(),
    /** A state plan's differences, one per record or setting (FleetStateChangeSchema). */
    changes: jsonb('changes').$type<unknown>(),
    status: text('status').notNull().default('pending'),
    error: text('error'),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** What the step changed, as it can be put back (fleet.revert.ts, migration 0052); null when nothing was. */
    undo: jsonb('undo').$type<unknown>(),
    /** A revert's row changed since its run, ticked to be reverted all the same. */
    forced: boolean('forced').notNull().default(false),
  },
  (t) => [
    primaryKey({ name: 'fleet_plan_items_pk', columns: [t.planId, t.seq] }),
    uniqueIndex('fleet_plan_items_domain_uq').on(t.planId, t.domainId),
    index('fleet_plan_items_status_idx').on(t.planId, t.status, t.seq),
    index('fleet_plan_items_outcome_idx').on(t.planId, t.outcome, t.seq),
  ],
);
