import { and, asc, count, desc, eq, ilike, inArray, isNull, notInArray, sql, type SQL } from 'drizzle-orm';
import {
  PAGE_SIZE,
  type LaunchSettings,
  type LaunchBatchRowsQuery,
  type LaunchBatchState,
  type LaunchListQuery,
  type LaunchRowStatus,
  type LaunchStage,
  type LaunchState,
} from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { brands, clouds, domains, launches, planItems, servers } from '../../db/schema/index.ts';
import { likePattern, pageOffset } from '../../http/list-query.ts';

import {
  mergeDetail,
  plansOfKind,
  type PlanItemRow,
  type PlanRow,
  type PlansRepository,
} from '../plans/plans.repository.ts';

/** A launch batch as its service reads it: the plan row with its shared settings (kept in `detail`). */
const batchOf = (r: PlanRow) => ({
  ...r,
  batchNo: r.planNo,
  settings: r.detail.settings as LaunchSettings,
  confirmCostly: r.detail.confirmCostly === true,
  state: r.state as LaunchBatchState,
});
export type LaunchBatchRow = ReturnType<typeof batchOf>;
/** One name of a batch: its overrides, its plan's verdict (the item's reason), then its launch. */
export const launchRowOf = (r: PlanItemRow) => ({
  seq: r.seq,
  domainName: r.name,
  domainNameUnicode: r.nameUnicode ?? r.name,
  overrides: (r.detail.overrides ?? {}) as Partial<LaunchSettings>,
  status: r.status as LaunchRowStatus,
  message: r.reason,
  launchId: (r.detail.launchId as string | undefined) ?? null,
});
export type LaunchBatchRowRow = ReturnType<typeof launchRowOf>;
/** A launch of a batch waiting for a confirmation, with the stage that waits. */
export type LaunchWaiting = {
  domainName: string;
  stage: string | null;
  /** The launch's own (resolved) registration: a batch's profile may name it, not its settings. */
  registration: { domainRegistratorId: string; years: number } | null;
};
/** A row's launch, joined on. */
const launchIdOf = sql<string | null>`(${planItems.detail}->>'launchId')::uuid`;
const onLaunch = eq(launches.id, launchIdOf);

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
  WHEN ${launchIdOf} IS NOT NULL AND ${launches.id} IS NOT NULL
    AND ${planItems.status} IN ('pending', 'running', 'needs_confirmation')
  THEN (CASE ${launches.state}
    WHEN 'completed' THEN 'done'
    WHEN 'failed' THEN 'failed'
    WHEN 'cancelled' THEN 'cancelled'
    WHEN 'needs_confirmation' THEN 'needs_confirmation'
    ELSE 'running' END)
  ELSE ${planItems.status} END)`;

export function createLaunchesRepository(db: Db, plans: PlansRepository) {
  const batches = plansOfKind<LaunchBatchRow, LaunchBatchState>(plans, 'launches', batchOf);
  /** The id of a row of `table` that `where` takes, or null. */
  const idWhere = async (table: typeof servers | typeof brands | typeof clouds | typeof domains, where: SQL) => {
    const [r] = await db.select({ id: table.id }).from(table).where(where).limit(1);
    return r?.id ?? null;
  };
  /** Changes the launch `where` takes (one, by its id), and answers it as it is now. */
  const updateWhere = async (where: SQL | undefined, patch: LaunchPatch): Promise<LaunchRow | undefined> => {
    const [r] = await db
      .update(launches)
      .set({ ...patch, updatedAt: new Date() })
      .where(where)
      .returning();
    return r;
  };
  /** A batch's rows whose launch `where` takes, in order (at most `limit`, when given). */
  const rowsByLaunch = async (batchId: string, where: SQL, limit?: number): Promise<LaunchBatchRowRow[]> => {
    const rows = db
      .select({ row: planItems })
      .from(planItems)
      .innerJoin(launches, onLaunch)
      .where(and(eq(planItems.planId, batchId), where))
      .orderBy(asc(planItems.seq))
      .$dynamic();
    return (await (limit === undefined ? rows : rows.limit(limit))).map((r) => launchRowOf(r.row));
  };
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

    update: (id: string, patch: LaunchPatch) => updateWhere(eq(launches.id, id), patch),

    /** Changes the row only while it is in one of `from` (so an API call and a running job cannot both win). */
    transition: (id: string, from: LaunchState[], patch: LaunchPatch) =>
      updateWhere(and(eq(launches.id, id), inArray(launches.state, from)), patch),

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

    // ---------------------------------------------------------------- batches (plans of the kind launches)
    async insertBatch(
      values: { settings: LaunchSettings; confirmCostly: boolean; state?: LaunchBatchState; createdBy: string | null },
      /** In order: they are numbered from 1 as given. */
      rows: (Pick<LaunchBatchRowRow, 'domainName' | 'domainNameUnicode' | 'status'> & {
        overrides: Record<string, unknown>;
      })[],
    ): Promise<LaunchBatchRow> {
      return db.transaction(async (tx) => {
        const { settings, confirmCostly, ...rest } = values;
        const b = await plans.insertPlan('launches', { ...rest, detail: { settings, confirmCostly } }, tx);
        await plans.insertItems(
          b.id,
          rows.map((r) => ({
            name: r.domainName,
            nameUnicode: r.domainNameUnicode,
            outcome: 'launch',
            status: r.status,
            detail: { overrides: r.overrides },
          })),
          tx,
        );
        return batchOf(b);
      });
    },

    findBatch: batches.findPlan,
    listBatches: batches.listPlans,
    transitionBatch: batches.transition,

    async rowCounts(batchIds: string[]): Promise<Map<string, Map<LaunchRowStatus, number>>> {
      const out = new Map<string, Map<LaunchRowStatus, number>>();
      if (!batchIds.length) return out;
      const rows = await db
        .select({ batchId: planItems.planId, status: liveStatus, n: count() })
        .from(planItems)
        .leftJoin(launches, onLaunch)
        .where(inArray(planItems.planId, batchIds))
        .groupBy(planItems.planId, liveStatus);
      for (const r of rows) {
        const m = out.get(r.batchId) ?? new Map<LaunchRowStatus, number>();
        m.set(r.status, Number(r.n));
        out.set(r.batchId, m);
      }
      return out;
    },

    async rowsPage(batchId: string, q: LaunchBatchRowsQuery) {
      const where: SQL[] = [eq(planItems.planId, batchId)];
      if (q.status) where.push(sql`${liveStatus} = ${q.status}`);
      if (q.search) where.push(ilike(planItems.nameUnicode, likePattern(q.search)));
      const cond = and(...where);
      const [items, [total]] = await Promise.all([
        db
          .select({ row: planItems, status: liveStatus, stages: launches.stages, launchError: launches.error })
          .from(planItems)
          .leftJoin(launches, onLaunch)
          .where(cond)
          .orderBy(asc(planItems.seq))
          .limit(PAGE_SIZE)
          .offset(pageOffset(q.page)),
        db.select({ n: count() }).from(planItems).leftJoin(launches, onLaunch).where(cond),
      ]);
      return { items: items.map((i) => ({ ...i, row: launchRowOf(i.row) })), itemsCount: Number(total?.n ?? 0) };
    },

    /** Rows whose launch waits for a confirmation now (whatever the batch's copy of its status says). */
    rowsWaiting: (batchId: string) => rowsByLaunch(batchId, eq(launches.state, 'needs_confirmation')),

    /**
     * The launches of these batches waiting for a confirmation now, with the stage that waits ('register' for a
     * registration, 'domain' for the changes to an existing console domain's settings).
     */
    async waitingOf(batchIds: string[]) {
      const out = new Map<string, LaunchWaiting[]>();
      if (!batchIds.length) return out;
      const rows = await db
        .select({
          batchId: planItems.planId,
          domainName: launches.domainName,
          stage: sql<
            string | null
          >`(SELECT s->>'key' FROM jsonb_array_elements(${launches.stages}) AS s WHERE s->>'state' = 'needs_confirmation' LIMIT 1)`,
          registration: sql<LaunchWaiting['registration']>`(${launches.input}->'registration')`,
        })
        .from(planItems)
        .innerJoin(launches, onLaunch)
        .where(and(inArray(planItems.planId, batchIds), eq(launches.state, 'needs_confirmation')))
        .orderBy(asc(planItems.seq));
      for (const r of rows) {
        const list = out.get(r.batchId) ?? [];
        list.push({ domainName: r.domainName, stage: r.stage, registration: r.registration ?? null });
        out.set(r.batchId, list);
      }
      return out;
    },

    /** Rows in one of `statuses`, in order, after row `after`, at most `limit`. */
    rowsIn: async (batchId: string, statuses: LaunchRowStatus[], after: number, limit: number) =>
      (await plans.items(batchId, { statuses }, after, limit)).map(launchRowOf),

    /** Rows whose launch has not ended (under way, or waiting for a confirmation), at most `limit`. */
    rowsWithOpenLaunch: (batchId: string, limit: number) =>
      rowsByLaunch(batchId, notInArray(launches.state, ['completed', 'failed', 'cancelled']), limit),

    /** Pending rows the plan job has not planned yet (it writes a message on each). */
    async unplannedRows(batchId: string, limit: number): Promise<LaunchBatchRowRow[]> {
      const rows = await db
        .select()
        .from(planItems)
        .where(and(eq(planItems.planId, batchId), eq(planItems.status, 'pending'), isNull(planItems.reason)))
        .orderBy(asc(planItems.seq))
        .limit(limit);
      return rows.map(launchRowOf);
    },

    async updateRow(
      batchId: string,
      seq: number,
      patch: Partial<Pick<LaunchBatchRowRow, 'status' | 'message' | 'launchId'>>,
    ) {
      const { message, launchId, ...rest } = patch;
      await plans.updateItem(batchId, seq, {
        ...rest,
        ...(message !== undefined ? { reason: message } : {}),
        ...(launchId !== undefined ? { detail: mergeDetail({ launchId }) } : {}),
      });
    },

    /** A launch's state (the batch run follows it). */
    async launchState(id: string) {
      const [r] = await db
        .select({ state: launches.state, error: launches.error })
        .from(launches)
        .where(eq(launches.id, id));
      return r;
    },

    // ---------------------------------------------------------------- CSV values as people know them
    serverIdByIp: (ip: string) => idWhere(servers, eq(servers.ipAddress, ip)),
    brandIdByName: (name: string) => idWhere(brands, sql`lower(${brands.name}) = lower(${name})`),
    cloudIdByEmail: (email: string) => idWhere(clouds, sql`lower(${clouds.email}) = lower(${email})`),
    domainIdByName: (name: string) => idWhere(domains, eq(domains.domainName, name)),
  };
}
export type LaunchesRepository = ReturnType<typeof createLaunchesRepository>;
