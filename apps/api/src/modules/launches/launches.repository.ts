import { and, asc, count, desc, eq, ilike, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import {
  PAGE_SIZE,
  type LaunchBatchRowsQuery,
  type LaunchBatchState,
  type LaunchListQuery,
  type LaunchRowStatus,
  type LaunchStage,
  type LaunchState,
} from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { brands, clouds, domains, launchBatchRows, launchBatches, launches, servers } from '../../db/schema/index.ts';
import { likePattern, pageOffset } from '../../http/list-query.ts';

export type LaunchBatchRow = typeof launchBatches.$inferSelect;
export type LaunchBatchRowRow = typeof launchBatchRows.$inferSelect;
const INSERT_CHUNK = 500;

export type LaunchRow = typeof launches.$inferSelect;
export type LaunchPatch = Partial<
  Pick<
    LaunchRow,
    'state' | 'confirmed' | 'settingsConfirmed' | 'stages' | 'jobId' | 'error' | 'domainId' | 'startedAt' | 'finishedAt'
  >
>;

/**
 * A row's status read from its launch as it stands (not from the batch job's copy, which only a live follower
 * updates): counts keep moving when the batch's worker died, and a launch confirmed on its own page counts.
 */
const liveStatus = sql<LaunchRowStatus>`(CASE
  WHEN ${launchBatchRows.launchId} IS NOT NULL AND ${launches.id} IS NOT NULL
    AND ${launchBatchRows.status} IN ('running', 'needs_confirmation')
  THEN (CASE ${launches.state}
    WHEN 'completed' THEN 'done'
    WHEN 'failed' THEN 'failed'
    WHEN 'cancelled' THEN 'cancelled'
    WHEN 'needs_confirmation' THEN 'needs_confirmation'
    ELSE 'running' END)
  ELSE ${launchBatchRows.status} END)`;

export function createLaunchesRepository(db: Db) {
  return {
    async insert(values: typeof launches.$inferInsert): Promise<LaunchRow> {
      const [r] = await db.insert(launches).values(values).returning();
      return r!;
    },

    async find(id: string): Promise<LaunchRow | undefined> {
      const [r] = await db.select().from(launches).where(eq(launches.id, id));
      return r;
    },

    async list(q: LaunchListQuery): Promise<{ items: LaunchRow[]; itemsCount: number }> {
      const where: SQL[] = [];
      if (q.state) where.push(eq(launches.state, q.state));
      if (q.search) where.push(ilike(launches.domainNameUnicode, likePattern(q.search)));
      const cond = where.length ? and(...where) : undefined;
      const [items, [total]] = await Promise.all([
        db
          .select()
          .from(launches)
          .where(cond)
          .orderBy(desc(launches.launchNo))
          .limit(q.pageSize)
          .offset((q.page - 1) * q.pageSize),
        db.select({ n: count() }).from(launches).where(cond),
      ]);
      return { items, itemsCount: Number(total?.n ?? 0) };
    },

    async update(id: string, patch: LaunchPatch): Promise<LaunchRow | undefined> {
      const [r] = await db
        .update(launches)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(launches.id, id))
        .returning();
      return r;
    },

    /** Changes the row only while it is in one of `from` (so an API call and a running job cannot both win). */
    async transition(id: string, from: LaunchState[], patch: LaunchPatch): Promise<LaunchRow | undefined> {
      const [r] = await db
        .update(launches)
        .set({ ...patch, updatedAt: new Date() })
        .where(and(eq(launches.id, id), inArray(launches.state, from)))
        .returning();
      return r;
    },

    /** One stage's entry, written in place (the job writes its own stage; nothing else writes while it runs). */
    async setStage(id: string, index: number, stage: LaunchStage): Promise<void> {
      await db
        .update(launches)
        .set({
          stages: sql`jsonb_set(${launches.stages}, ${`{${index}}`}::text[], ${JSON.stringify(stage)}::jsonb)`,
          updatedAt: new Date(),
        })
        .where(eq(launches.id, id));
    },

    /** The unfinished launch of this name, if any: one launch at a time per name. */
    async activeFor(domainName: string): Promise<LaunchRow | undefined> {
      const [r] = await db
        .select()
        .from(launches)
        .where(
          and(
            eq(launches.domainName, domainName),
            inArray(launches.state, ['queued', 'running', 'waiting', 'needs_confirmation']),
          ),
        )
        .limit(1);
      return r;
    },

    // ---------------------------------------------------------------- batches
    async insertBatch(
      values: typeof launchBatches.$inferInsert,
      rows: Omit<typeof launchBatchRows.$inferInsert, 'batchId'>[],
    ): Promise<LaunchBatchRow> {
      return db.transaction(async (tx) => {
        const [b] = await tx.insert(launchBatches).values(values).returning();
        for (let i = 0; i < rows.length; i += INSERT_CHUNK)
          await tx
            .insert(launchBatchRows)
            .values(rows.slice(i, i + INSERT_CHUNK).map((r) => ({ ...r, batchId: b!.id })));
        return b!;
      });
    },

    async findBatch(id: string): Promise<LaunchBatchRow | undefined> {
      const [r] = await db.select().from(launchBatches).where(eq(launchBatches.id, id));
      return r;
    },

    async listBatches(page: number): Promise<{ items: LaunchBatchRow[]; itemsCount: number }> {
      const [items, [total]] = await Promise.all([
        db.select().from(launchBatches).orderBy(desc(launchBatches.batchNo)).limit(PAGE_SIZE).offset(pageOffset(page)),
        db.select({ n: count() }).from(launchBatches),
      ]);
      return { items, itemsCount: Number(total?.n ?? 0) };
    },

    async transitionBatch(
      id: string,
      from: LaunchBatchState[],
      patch: Partial<Pick<LaunchBatchRow, 'state' | 'error' | 'jobId'>>,
    ): Promise<LaunchBatchRow | undefined> {
      const [r] = await db
        .update(launchBatches)
        .set({ ...patch, updatedAt: new Date() })
        .where(and(eq(launchBatches.id, id), inArray(launchBatches.state, from)))
        .returning();
      return r;
    },

    async rowCounts(batchIds: string[]): Promise<Map<string, Map<LaunchRowStatus, number>>> {
      const out = new Map<string, Map<LaunchRowStatus, number>>();
      if (!batchIds.length) return out;
      const rows = await db
        .select({ batchId: launchBatchRows.batchId, status: liveStatus, n: count() })
        .from(launchBatchRows)
        .leftJoin(launches, eq(launches.id, launchBatchRows.launchId))
        .where(inArray(launchBatchRows.batchId, batchIds))
        .groupBy(launchBatchRows.batchId, liveStatus);
      for (const r of rows) {
        const m = out.get(r.batchId) ?? new Map<LaunchRowStatus, number>();
        m.set(r.status, Number(r.n));
        out.set(r.batchId, m);
      }
      return out;
    },

    async rowsPage(batchId: string, q: LaunchBatchRowsQuery) {
      const where: SQL[] = [eq(launchBatchRows.batchId, batchId)];
      if (q.status) where.push(sql`${liveStatus} = ${q.status}`);
      if (q.search) where.push(ilike(launchBatchRows.domainNameUnicode, likePattern(q.search)));
      const cond = and(...where);
      const [items, [total]] = await Promise.all([
        db
          .select({
            row: launchBatchRows,
            status: liveStatus,
            stages: launches.stages,
            launchError: launches.error,
          })
          .from(launchBatchRows)
          .leftJoin(launches, eq(launches.id, launchBatchRows.launchId))
          .where(cond)
          .orderBy(asc(launchBatchRows.seq))
          .limit(PAGE_SIZE)
          .offset(pageOffset(q.page)),
        db
          .select({ n: count() })
          .from(launchBatchRows)
          .leftJoin(launches, eq(launches.id, launchBatchRows.launchId))
          .where(cond),
      ]);
      return { items, itemsCount: Number(total?.n ?? 0) };
    },

    /** Rows whose launch waits for a confirmation now (whatever the batch's copy of its status says). */
    async rowsWaiting(batchId: string): Promise<LaunchBatchRowRow[]> {
      return db
        .select({ row: launchBatchRows })
        .from(launchBatchRows)
        .innerJoin(launches, eq(launches.id, launchBatchRows.launchId))
        .where(and(eq(launchBatchRows.batchId, batchId), eq(launches.state, 'needs_confirmation')))
        .orderBy(asc(launchBatchRows.seq))
        .then((rows) => rows.map((r) => r.row));
    },

    /**
     * The launches of these batches waiting for a confirmation now, with the stage that waits ('register' for a
     * registration, 'domain' for the changes to an existing console domain's settings).
     */
    async waitingOf(batchIds: string[]) {
      type Waiting = {
        domainName: string;
        stage: string | null;
        /** The launch's own (resolved) registration: a batch's profile may name it, not its settings. */
        registration: { domainRegistratorId: string; years: number } | null;
      };
      const out = new Map<string, Waiting[]>();
      if (!batchIds.length) return out;
      const rows = await db
        .select({
          batchId: launchBatchRows.batchId,
          domainName: launches.domainName,
          stage: sql<
            string | null
          >`(SELECT s->>'key' FROM jsonb_array_elements(${launches.stages}) AS s WHERE s->>'state' = 'needs_confirmation' LIMIT 1)`,
          registration: sql<Waiting['registration']>`(${launches.input}->'registration')`,
        })
        .from(launchBatchRows)
        .innerJoin(launches, eq(launches.id, launchBatchRows.launchId))
        .where(and(inArray(launchBatchRows.batchId, batchIds), eq(launches.state, 'needs_confirmation')))
        .orderBy(asc(launchBatchRows.seq));
      for (const r of rows) {
        const list = out.get(r.batchId) ?? [];
        list.push({ domainName: r.domainName, stage: r.stage, registration: r.registration ?? null });
        out.set(r.batchId, list);
      }
      return out;
    },

    /** Rows in one of `statuses`, in order, at most `limit`. */
    async rowsIn(batchId: string, statuses: LaunchRowStatus[], limit: number): Promise<LaunchBatchRowRow[]> {
      return db
        .select()
        .from(launchBatchRows)
        .where(and(eq(launchBatchRows.batchId, batchId), inArray(launchBatchRows.status, statuses)))
        .orderBy(asc(launchBatchRows.seq))
        .limit(limit);
    },

    /** Pending rows the plan job has not planned yet (it writes a message on each). */
    async unplannedRows(batchId: string, limit: number): Promise<LaunchBatchRowRow[]> {
      return db
        .select()
        .from(launchBatchRows)
        .where(
          and(
            eq(launchBatchRows.batchId, batchId),
            eq(launchBatchRows.status, 'pending'),
            isNull(launchBatchRows.message),
          ),
        )
        .orderBy(asc(launchBatchRows.seq))
        .limit(limit);
    },

    /** Pending → running, only for the first who asks. */
    async claimRow(batchId: string, seq: number): Promise<boolean> {
      const r = await db
        .update(launchBatchRows)
        .set({ status: 'running' })
        .where(
          and(
            eq(launchBatchRows.batchId, batchId),
            eq(launchBatchRows.seq, seq),
            eq(launchBatchRows.status, 'pending'),
          ),
        )
        .returning({ seq: launchBatchRows.seq });
      return r.length > 0;
    },

    async updateRow(
      batchId: string,
      seq: number,
      patch: Partial<Pick<LaunchBatchRowRow, 'status' | 'message' | 'launchId'>>,
    ) {
      await db
        .update(launchBatchRows)
        .set(patch)
        .where(and(eq(launchBatchRows.batchId, batchId), eq(launchBatchRows.seq, seq)));
    },

    /** The launches' states of these ids (the batch run follows them). */
    async launchStates(ids: string[]) {
      if (!ids.length) return new Map<string, { state: LaunchState; error: string | null }>();
      const rows = await db
        .select({ id: launches.id, state: launches.state, error: launches.error })
        .from(launches)
        .where(inArray(launches.id, ids));
      return new Map(rows.map((r) => [r.id, { state: r.state, error: r.error }]));
    },

    // ---------------------------------------------------------------- CSV values as people know them
    async serverIdByIp(ip: string) {
      const [r] = await db.select({ id: servers.id }).from(servers).where(eq(servers.ipAddress, ip)).limit(2);
      return r?.id ?? null;
    },
    async brandIdByName(name: string) {
      const [r] = await db
        .select({ id: brands.id })
        .from(brands)
        .where(sql`lower(${brands.name}) = lower(${name})`)
        .limit(1);
      return r?.id ?? null;
    },
    async cloudIdByEmail(email: string) {
      const [r] = await db
        .select({ id: clouds.id })
        .from(clouds)
        .where(sql`lower(${clouds.email}) = lower(${email})`)
        .limit(1);
      return r?.id ?? null;
    },
    async domainIdByName(name: string) {
      const [r] = await db.select({ id: domains.id }).from(domains).where(eq(domains.domainName, name)).limit(1);
      return r?.id ?? null;
    },
  };
}
export type LaunchesRepository = ReturnType<typeof createLaunchesRepository>;
