import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { domains } from './domains.ts';
import { servers } from './infrastructure.ts';

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

/**
 * The files a content change was about to change, kept so "Restore" can put them back (issue 44, decision 078):
 * small ones in `content_snapshot_files.content`, larger ones under `remote_dir` on the domain's server. Pruned
 * (bytes dropped, row kept so the audit entry can say why) past `expires_at` or the server's size bound.
 */
export const contentSnapshots = pgTable(
  'content_snapshots',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    domainId: uuid('domain_id').references(() => domains.id, { onDelete: 'set null' }),
    domainName: text('domain_name').notNull(),
    serverId: uuid('server_id').references(() => servers.id, { onDelete: 'set null' }),
    dir: text('dir').notNull(),
    action: text('action').notNull(),
    storage: text('storage', { enum: ['db', 'server'] }).notNull(),
    remoteDir: text('remote_dir'),
    fileCount: integer('file_count').notNull().default(0),
    bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    prunedAt: timestamp('pruned_at', { withTimezone: true }),
    prunedReason: text('pruned_reason'),
  },
  (t) => [
    check('content_snapshots_storage_check', sql`${t.storage} IN ('db', 'server')`),
    index('content_snapshots_server_idx')
      .on(t.serverId, t.createdAt)
      .where(sql`${t.prunedAt} IS NULL`),
    index('content_snapshots_expires_idx')
      .on(t.expiresAt)
      .where(sql`${t.prunedAt} IS NULL`),
  ],
);

/** One path a snapshot covers: what was there before (bytes in `content` for the database's), what was written. */
export const contentSnapshotFiles = pgTable(
  'content_snapshot_files',
  {
    snapshotId: uuid('snapshot_id')
      .notNull()
      .references(() => contentSnapshots.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    path: text('path').notNull(),
    type: text('type', { enum: ['file', 'directory'] }).notNull(),
    beforeExists: boolean('before_exists').notNull(),
    beforeSize: bigint('before_size', { mode: 'number' }),
    beforeSha: text('before_sha'),
    afterExists: boolean('after_exists').notNull(),
    afterSize: bigint('after_size', { mode: 'number' }),
    afterSha: text('after_sha'),
    afterMtime: integer('after_mtime'),
    content: bytea('content'),
  },
  (t) => [
    primaryKey({ name: 'content_snapshot_files_pk', columns: [t.snapshotId, t.seq] }),
    check('content_snapshot_files_type_check', sql`${t.type} IN ('file', 'directory')`),
  ],
);
