import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { indexNowKeys } from '../../db/schema/index.ts';

/** The domains' IndexNow keys (decision 075). */
export function createIndexNowRepository(db: Db) {
  return {
    /** The domain's key and its last submission, made with `fresh()` the first time (a race keeps the first). */
    async keyOf(domainId: string, fresh: () => string): Promise<{ key: string; lastSubmittedAt: Date | null }> {
      await db.insert(indexNowKeys).values({ domainId, key: fresh() }).onConflictDoNothing();
      const [r] = await db
        .select({ key: indexNowKeys.key, lastSubmittedAt: indexNowKeys.lastSubmittedAt })
        .from(indexNowKeys)
        .where(eq(indexNowKeys.domainId, domainId));
      return r!;
    },
    async submitted(domainId: string, at: Date) {
      await db.update(indexNowKeys).set({ lastSubmittedAt: at }).where(eq(indexNowKeys.domainId, domainId));
    },
  };
}
export type IndexNowRepository = ReturnType<typeof createIndexNowRepository>;
