import { and, asc, eq, isNull, lte, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { contentSnapshotFiles, contentSnapshots } from '../../db/schema/index.ts';

export type SnapshotRow = typeof contentSnapshots.$inferSelect;
export type SnapshotFileRow = Omit<typeof contentSnapshotFiles.$inferSelect, 'content'>;
export type NewSnapshotFile = Omit<typeof contentSnapshotFiles.$inferInsert, 'snapshotId'>;

const INSERT_BATCH = 500;

/** Content snapshots and their files (decision 078). */
export function createContentSnapshotsRepository(db: Db) {
  const fileColumns = {
    snapshotId: contentSnapshotFiles.snapshotId,
    seq: contentSnapshotFiles.seq,
    path: contentSnapshotFiles.path,
    type: contentSnapshotFiles.type,
    beforeExists: contentSnapshotFiles.beforeExists,
    beforeSize: contentSnapshotFiles.beforeSize,
    beforeSha: contentSnapshotFiles.beforeSha,
    afterExists: contentSnapshotFiles.afterExists,
    afterSize: contentSnapshotFiles.afterSize,
    afterSha: contentSnapshotFiles.afterSha,
    afterMtime: contentSnapshotFiles.afterMtime,
  };
  return {
    /** The snapshot and its files, in one transaction. */
    async insert(row: typeof contentSnapshots.$inferInsert, files: NewSnapshotFile[]): Promise<SnapshotRow> {
      return db.transaction(async (tx) => {
        const [s] = await tx.insert(contentSnapshots).values(row).returning();
        for (let i = 0; i < files.length; i += INSERT_BATCH) {
          await tx
            .insert(contentSnapshotFiles)
            .values(files.slice(i, i + INSERT_BATCH).map((f) => ({ ...f, snapshotId: s!.id })));
        }
        return s!;
      });
    },
    async find(id: string): Promise<SnapshotRow | undefined> {
      const [s] = await db.select().from(contentSnapshots).where(eq(contentSnapshots.id, id));
      return s;
    },
    /** Its files in the order they were kept (a directory before what it holds), without their bytes. */
    files: (id: string): Promise<SnapshotFileRow[]> =>
      db
        .select(fileColumns)
        .from(contentSnapshotFiles)
        .where(eq(contentSnapshotFiles.snapshotId, id))
        .orderBy(asc(contentSnapshotFiles.seq)),
    /** The bytes a database-kept file had before the change. */
    async content(id: string, seq: number): Promise<Buffer | null> {
      const [r] = await db
        .select({ content: contentSnapshotFiles.content })
        .from(contentSnapshotFiles)
        .where(and(eq(contentSnapshotFiles.snapshotId, id), eq(contentSnapshotFiles.seq, seq)));
      return r?.content ?? null;
    },
    /** Snapshots past their expiry and not pruned yet, oldest first. */
    expired: (now: Date, limit: number): Promise<SnapshotRow[]> =>
      db
        .select()
        .from(contentSnapshots)
        .where(and(isNull(contentSnapshots.prunedAt), lte(contentSnapshots.expiresAt, now)))
        .orderBy(asc(contentSnapshots.expiresAt))
        .limit(limit),
    /** The server's kept snapshots on its disk (other than `except`), oldest first, with their bytes. */
    onServer: (serverId: string, except: string): Promise<SnapshotRow[]> =>
      db
        .select()
        .from(contentSnapshots)
        .where(
          and(
            eq(contentSnapshots.serverId, serverId),
            eq(contentSnapshots.storage, 'server'),
            isNull(contentSnapshots.prunedAt),
            ne(contentSnapshots.id, except),
          ),
        )
        .orderBy(asc(contentSnapshots.createdAt)),
    /** Drops the kept bytes and file rows; the row stays so the audit entry can say why it is not restorable. */
    async prune(id: string, reason: string) {
      await db.transaction(async (tx) => {
        await tx.delete(contentSnapshotFiles).where(eq(contentSnapshotFiles.snapshotId, id));
        await tx
          .update(contentSnapshots)
          .set({ prunedAt: sql`now()`, prunedReason: reason })
          .where(eq(contentSnapshots.id, id));
      });
    },
  };
}
export type ContentSnapshotsRepository = ReturnType<typeof createContentSnapshotsRepository>;
