import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { LaunchSettings, LaunchStage, LaunchState } from '@fleetdesk/contract';

/**
 * A launch (decision 044): the resolved input, where it stands, and each stage's state, time, detail, links and
 * wait, in `stages` (one jsonb array, in stage order; only the launch's own job writes it while it runs).
 */
export const launches = pgTable(
  'launches',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    launchNo: integer('launch_no').generatedAlwaysAsIdentity().notNull(),
    domainName: text('domain_name').notNull(),
    domainNameUnicode: text('domain_name_unicode').notNull(),
    domainId: uuid('domain_id'),
    input: jsonb('input').$type<LaunchSettings>().notNull(),
    state: text('state').$type<LaunchState>().notNull().default('queued'),
    confirmed: boolean('confirmed').notNull().default(false),
    /** The operator confirmed the changes to an existing console domain's settings (issue 40). */
    settingsConfirmed: boolean('settings_confirmed').notNull().default(false),
    stages: jsonb('stages').$type<LaunchStage[]>().notNull(),
    jobId: uuid('job_id'),
    error: text('error'),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('launches_launch_no_uq').on(t.launchNo),
    index('launches_domain_name_idx').on(t.domainName),
    index('launches_state_idx').on(t.state, t.launchNo),
  ],
);
