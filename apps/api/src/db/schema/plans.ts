import type { PlanKind } from '@fleetdesk/contract';
import {
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

/**
 * The kinds of plan (outcomes.ts) kept in `plans` so far; each numbers its plans apart (`plans_<kind>_no_seq`,
 * migrations 0056–0058).
 */
export const STORED_PLAN_KINDS = ['imports', 'fleet', 'launches'] as const satisfies readonly PlanKind[];
export type StoredPlanKind = (typeof STORED_PLAN_KINDS)[number];

/**
 * A plan of any kind (decision 084): what it acts on (`selection`), what the kind keeps of it (`detail`), and where
 * its run stands. The state words are the kind's; the rule that sets them from the items is outcomes.ts.
 */
export const plans = pgTable(
  'plans',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind', { enum: STORED_PLAN_KINDS }).notNull(),
    planNo: integer('plan_no').notNull(),
    state: text('state').notNull().default('planning'),
    selection: jsonb('selection').$type<Record<string, unknown>>().notNull().default({}),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
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
  (t) => [uniqueIndex('plans_kind_no_uq').on(t.kind, t.planNo)],
);

/** One domain or name of a plan: what planning decided and why, the run's step for it, and what it changed. */
export const planItems = pgTable(
  'plan_items',
  {
    planId: uuid('plan_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    domainId: uuid('domain_id'),
    /** The stored (ASCII) name. */
    name: text('name').notNull(),
    nameUnicode: text('name_unicode'),
    /** The group the run works through apart from the others (a Cloudflare account); null for one lane. */
    lane: text('lane'),
    outcome: text('outcome').notNull().default('pending'),
    reason: text('reason'),
    status: text('status').notNull().default('pending'),
    error: text('error'),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** What the step changed, as it can be put back; null when nothing was. */
    undo: jsonb('undo').$type<unknown>(),
    /** Ticked to be done although planning advised against it (a revert's row changed since). */
    forced: boolean('forced').notNull().default(false),
    /** The kind's own facts of the item (an import: what the source says of the name). */
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    primaryKey({ name: 'plan_items_pk', columns: [t.planId, t.seq] }),
    index('plan_items_status_idx').on(t.planId, t.status, t.seq),
    index('plan_items_outcome_idx').on(t.planId, t.outcome, t.seq),
    uniqueIndex('plan_items_domain_uq').on(t.planId, t.domainId),
  ],
);
