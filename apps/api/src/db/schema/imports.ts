import { pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** A zone files export's zip (a job's result), kept in the database so any API process can serve it. */
export const zoneFileExports = pgTable('zone_file_exports', {
  jobId: uuid('job_id').primaryKey(),
  fileName: text('file_name').notNull(),
  /** The zip, base64. */
  content: text('content').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
