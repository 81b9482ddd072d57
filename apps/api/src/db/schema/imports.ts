import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import { IMPORT_STATES } from '@fleetdesk/contract';

export const IMPORT_PLAN_STATES = IMPORT_STATES;

/** An import: where from (a cloud, a server's panel, a registrator), and where its plan and run stand (decision 043). */
export const importPlans = pgTable(
  'import_plans',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    planNo: integer('plan_no').generatedAlwaysAsIdentity().notNull(),
    source: text('source').notNull(),
    sourceId: uuid('source_id').notNull(),
    sourceLabel: text('source_label').notNull(),
    /** The panel users whose sites the plan read (migration 0041); null for sources without users. */
    sourceUsers: text('source_users').array(),
    state: text('state', { enum: IMPORT_PLAN_STATES }).notNull().default('planning'),
    error: text('error'),
    jobId: uuid('job_id'),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    plannedAt: timestamp('planned_at', { withTimezone: true }),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('import_plans_plan_no_uq').on(t.planNo)],
);

/** One name of an import: what planning decided (create, link or skip, and why) and the run's step for it. */
export const importItems = pgTable(
  'import_items',
  {
    planId: uuid('plan_id')
      .notNull()
      .references(() => importPlans.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    /** The stored (ASCII) name. */
    name: text('name').notNull(),
    nameUnicode: text('name_unicode').notNull(),
    outcome: text('outcome').notNull(),
    reason: text('reason'),
    /** What the source says of the name (a zone's id and status, an expiration date). */
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    domainId: uuid('domain_id'),
    status: text('status').notNull().default('pending'),
    error: text('error'),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: 'import_items_pk', columns: [t.planId, t.seq] }),
    index('import_items_status_idx').on(t.planId, t.status, t.seq),
  ],
);

/** A zone files export's zip (a job's result), kept in the database so any API process can serve it. */
export const zoneFileExports = pgTable('zone_file_exports', {
  jobId: uuid('job_id').primaryKey(),
  fileName: text('file_name').notNull(),
  /** The zip, base64. */
  content: text('content').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
