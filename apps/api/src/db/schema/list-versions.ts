import { bigint, pgTable, text } from 'drizzle-orm/pg-core';

/**
 * One row per listed table: its version, moved at commit by any write to the table (migration 0013). Lists
 * read it beside their page and count, so that a cached count is reused only while it is still exact.
 */
export const listVersions = pgTable('list_versions', {
  tbl: text('tbl').primaryKey(),
  v: bigint('v', { mode: 'number' }).notNull(),
});
