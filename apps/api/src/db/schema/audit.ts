import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Append-only. user_id is not a foreign key so that entries outlive the users they name. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    auditNo: bigint('audit_no', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    userId: uuid('user_id'),
    username: text('username'),
    action: text('action').notNull(),
    entity: text('entity').notNull(),
    entityId: text('entity_id'),
    diff: jsonb('diff').$type<Record<string, { before: unknown; after: unknown }>>(),
    details: jsonb('details').$type<Record<string, unknown>>(),
    requestId: text('request_id'),
    /** Set when the actor called through one of its personal API tokens. */
    tokenName: text('token_name'),
  },
  (t) => [
    index('audit_log_at_idx').on(t.auditNo),
    index('audit_log_entity_idx').on(t.entity, t.entityId, t.auditNo),
    index('audit_log_user_idx').on(t.userId, t.auditNo),
  ],
);
