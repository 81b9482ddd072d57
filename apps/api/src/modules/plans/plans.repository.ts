import { and, asc, count, desc, eq, gt, ilike, inArray, or, sql } from 'drizzle-orm';
import { PAGE_SIZE } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { STORED_PLAN_KINDS, planItems, plans, type StoredPlanKind } from '../../db/schema/index.ts';
import { likePattern, pageOffset } from '../../http/list-query.ts';

export type PlanRow = typeof plans.$inferSelect;
export type PlanItemRow = typeof planItems.$inferSelect;
export type PlanPatch = Partial<Omit<typeof plans.$inferInsert, 'id' | 'kind' | 'planNo'>>;
export type PlanItemInput = Omit<typeof planItems.$inferInsert, 'planId' | 'seq'>;
export type PlanItemPatch = Partial<Omit<PlanItemRow, 'planId' | 'seq'>>;
/** A patch of an item's `detail` that keeps its other keys (jsonb `||`), for `updateItem`. */
export const mergeDetail = (part: Record<string, unknown>) =>
  sql`${planItems.detail} || ${JSON.stringify(part)}::jsonb` as unknown as Record<string, unknown>;

/** Which items a phase works on: by status and by outcome, each when given. */
export type ItemFilter = { statuses?: readonly string[]; outcomes?: readonly string[] };

const INSERT_CHUNK = 2000;

/** Each kind's numbers come from its own sequence, named by the kind (one of STORED_PLAN_KINDS, never the caller's text). */
const numberOf = (kind: StoredPlanKind) => {
  if (!STORED_PLAN_KINDS.includes(kind)) throw new Error(`unknown plan kind ${String(kind)}`);
  return sql<number>`nextval(${`plans_${kind}_no_seq`}::regclass)::int`;
};

/** The SQL of every kind's plans and items (decision 084): the kinds keep only the lookups that are their own. */
export function createPlansRepository(db: Db) {
  const itemAt = (planId: string, seq: number) => and(eq(planItems.planId, planId), eq(planItems.seq, seq));
  const itemsWhere = (planId: string, f: ItemFilter, after = 0) =>
    and(
      eq(planItems.planId, planId),
      f.statuses ? inArray(planItems.status, [...f.statuses]) : undefined,
      f.outcomes ? inArray(planItems.outcome, [...f.outcomes]) : undefined,
      gt(planItems.seq, after),
    );

  /** Adds a plan's items, numbered from 1, a few thousand to a statement. */
  const insertItems = async (planId: string, items: PlanItemInput[], ex: Executor = db) => {
    for (let i = 0; i < items.length; i += INSERT_CHUNK) {
      await ex
        .insert(planItems)
        .values(items.slice(i, i + INSERT_CHUNK).map((it, j) => ({ ...it, planId, seq: i + j + 1 })));
    }
  };

  return {
    insertItems,

    async insertPlan(
      kind: StoredPlanKind,
      values: Pick<typeof plans.$inferInsert, 'selection' | 'detail' | 'createdBy' | 'state' | 'total'>,
      ex: Executor = db,
    ): Promise<PlanRow> {
      const [r] = await ex
        .insert(plans)
        .values({ ...values, kind, planNo: numberOf(kind) })
        .returning();
      return r!;
    },

    async findPlan(kind: StoredPlanKind, id: string, ex: Executor = db): Promise<PlanRow | undefined> {
      const [r] = await ex
        .select()
        .from(plans)
        .where(and(eq(plans.id, id), eq(plans.kind, kind)));
      return r;
    },

    /** A plan of any kind, by its id. */
    async findAny(id: string): Promise<PlanRow | undefined> {
      const [r] = await db.select().from(plans).where(eq(plans.id, id));
      return r;
    },

    async listPlans(kind: StoredPlanKind, page: number): Promise<{ items: PlanRow[]; itemsCount: number }> {
      const [items, [total]] = await Promise.all([
        db
          .select()
          .from(plans)
          .where(eq(plans.kind, kind))
          .orderBy(desc(plans.planNo))
          .limit(PAGE_SIZE)
          .offset(pageOffset(page)),
        db.select({ n: count() }).from(plans).where(eq(plans.kind, kind)),
      ]);
      return { items, itemsCount: Number(total?.n ?? 0) };
    },

    async updatePlan(id: string, patch: PlanPatch, ex: Executor = db) {
      await ex
        .update(plans)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(plans.id, id));
    },

    /** Moves a plan from one of `from` to a new state; undefined when it was in another state (a race lost). */
    async transition(
      id: string,
      from: readonly string[],
      patch: PlanPatch,
      ex: Executor = db,
    ): Promise<PlanRow | undefined> {
      const [r] = await ex
        .update(plans)
        .set({ ...patch, updatedAt: new Date() })
        .where(and(eq(plans.id, id), inArray(plans.state, [...from])))
        .returning();
      return r;
    },

    /** Replaces a plan's items (planning again after a crash starts from an empty list). */
    async replaceItems(planId: string, items: PlanItemInput[]) {
      await db.transaction(async (tx) => {
        await tx.delete(planItems).where(eq(planItems.planId, planId));
        await insertItems(planId, items, tx);
      });
    },

    async findItem(planId: string, seq: number): Promise<PlanItemRow | undefined> {
      const [r] = await db.select().from(planItems).where(itemAt(planId, seq));
      return r;
    },

    /** Marks a pending item running; false when it is no longer pending (the run was cancelled meanwhile), so that
     * no new step starts after a cancel, whichever worker holds the run. `orRunning` (a claim sent again after a lost
     * answer) takes it as it is. */
    async claimItem(planId: string, seq: number, orRunning = false): Promise<boolean> {
      const r = await db
        .update(planItems)
        .set({ status: 'running' })
        .where(and(itemAt(planId, seq), inArray(planItems.status, orRunning ? ['pending', 'running'] : ['pending'])))
        .returning({ seq: planItems.seq });
      return r.length > 0;
    },

    /**
     * Puts items of the given statuses (and outcomes) back to pending (retry failed; a stopped run's interrupted
     * steps). The error stays: an item tried again keeps its last failure until an attempt decides otherwise.
     */
    async resetSteps(planId: string, statuses: readonly string[], outcomes?: readonly string[]): Promise<number> {
      const r = await db
        .update(planItems)
        .set({ status: 'pending', finishedAt: null })
        .where(itemsWhere(planId, { statuses, outcomes }))
        .returning({ seq: planItems.seq });
      return r.length;
    },

    /** Items finished since `since` (for the expected time left). */
    async finishedSince(planId: string, since: Date): Promise<number> {
      const [r] = await db
        .select({ n: count() })
        .from(planItems)
        .where(and(eq(planItems.planId, planId), gt(planItems.finishedAt, since)));
      return Number(r?.n ?? 0);
    },

    /** The items after `after` that the filter takes, in order, at most `limit`. */
    async items(planId: string, f: ItemFilter, after: number, limit: number): Promise<PlanItemRow[]> {
      return db
        .select()
        .from(planItems)
        .where(itemsWhere(planId, f, after))
        .orderBy(asc(planItems.seq))
        .limit(limit);
    },

    async updateItem(planId: string, seq: number, patch: PlanItemPatch) {
      await db.update(planItems).set(patch).where(itemAt(planId, seq));
    },

    /**
     * Ends the items not done (of `statuses`, and `outcomes` when given): one that failed before (tried again, not
     * reached) is failed again with its reason; the others are cancelled. Nothing stays running after its run ended.
     */
    async cancelPending(planId: string, statuses: readonly ('pending' | 'running')[], outcomes?: readonly string[]) {
      await db
        .update(planItems)
        .set({
          status: sql`case when ${planItems.error} is null then 'cancelled' else 'failed' end`,
          finishedAt: new Date(),
        })
        .where(itemsWhere(planId, { statuses, outcomes }));
    },

    /** A page of items, by outcome and by a search over the name (both forms) and the reason. */
    async itemsPage(planId: string, q: { page: number; outcome?: string; status?: string; search?: string }) {
      const p = q.search && likePattern(q.search);
      const where = and(
        eq(planItems.planId, planId),
        q.outcome ? eq(planItems.outcome, q.outcome) : undefined,
        q.status ? eq(planItems.status, q.status) : undefined,
        p ? or(ilike(planItems.name, p), ilike(planItems.nameUnicode, p), ilike(planItems.reason, p)) : undefined,
      );
      const [items, [total]] = await Promise.all([
        db
          .select()
          .from(planItems)
          .where(where)
          .orderBy(asc(planItems.seq))
          .limit(PAGE_SIZE)
          .offset(pageOffset(q.page)),
        db.select({ n: count() }).from(planItems).where(where),
      ]);
      return { items, itemsCount: Number(total?.n ?? 0) };
    },

    /** How many items stand at each outcome and status. */
    async counts(planId: string): Promise<{ outcome: string; status: string; n: number }[]> {
      return db
        .select({ outcome: planItems.outcome, status: planItems.status, n: sql<number>`count(*)::int` })
        .from(planItems)
        .where(eq(planItems.planId, planId))
        .groupBy(planItems.outcome, planItems.status);
    },
  };
}
export type PlansRepository = ReturnType<typeof createPlansRepository>;

/** A kind's plans read as its own rows (`of`): found, listed and moved from one of `from` (a race lost: undefined). */
export function plansOfKind<R, S extends string>(plans: PlansRepository, kind: StoredPlanKind, of: (r: PlanRow) => R) {
  return {
    findPlan: async (id: string, ex?: Executor): Promise<R | undefined> => {
      const r = await plans.findPlan(kind, id, ex);
      return r && of(r);
    },
    listPlans: async (page: number): Promise<{ items: R[]; itemsCount: number }> => {
      const res = await plans.listPlans(kind, page);
      return { items: res.items.map(of), itemsCount: res.itemsCount };
    },
    transition: async (id: string, from: readonly S[], patch: PlanPatch, ex?: Executor): Promise<R | undefined> => {
      const r = await plans.transition(id, from, patch, ex);
      return r && of(r);
    },
  };
}
