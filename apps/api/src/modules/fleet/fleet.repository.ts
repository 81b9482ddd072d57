import { and, asc, count, desc, eq, gt, ilike, inArray, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import { PAGE_SIZE, type FleetItemsQuery, type FleetPlanState } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { clouds, domains, fleetPlanItems, fleetPlans } from '../../db/schema/index.ts';
import { likePattern, pageOffset } from '../../http/list-query.ts';

export type FleetPlanRow = typeof fleetPlans.$inferSelect;
export type FleetItemRow = typeof fleetPlanItems.$inferSelect;
export type FleetItemPatch = Partial<
  Pick<
    FleetItemRow,
    | 'outcome'
    | 'before'
    | 'after'
    | 'reason'
    | 'seen'
    | 'changes'
    | 'status'
    | 'error'
    | 'finishedAt'
    | 'undo'
    | 'forced'
  >
>;

/** Rows inserted per statement when a plan is created (well under PostgreSQL's 65,535 parameters). */
const INSERT_CHUNK = 2000;

export function createFleetRepository(db: Db) {
  return {
    async insertPlan(values: typeof fleetPlans.$inferInsert, ex: Executor = db): Promise<FleetPlanRow> {
      const [r] = await ex.insert(fleetPlans).values(values).returning();
      return r!;
    },

    async findPlan(id: string, ex: Executor = db): Promise<FleetPlanRow | undefined> {
      const [r] = await ex.select().from(fleetPlans).where(eq(fleetPlans.id, id));
      return r;
    },

    async listPlans(page: number): Promise<{ items: FleetPlanRow[]; itemsCount: number }> {
      const [items, [total]] = await Promise.all([
        db.select().from(fleetPlans).orderBy(desc(fleetPlans.planNo)).limit(PAGE_SIZE).offset(pageOffset(page)),
        db.select({ n: count() }).from(fleetPlans),
      ]);
      return { items, itemsCount: Number(total?.n ?? 0) };
    },

    async updatePlan(id: string, patch: Partial<typeof fleetPlans.$inferInsert>, ex: Executor = db) {
      await ex
        .update(fleetPlans)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(fleetPlans.id, id));
    },

    /** Moves a plan from one of `from` to a new state; undefined when it was in another state (a race lost). */
    async transition(
      id: string,
      from: readonly FleetPlanState[],
      patch: Partial<typeof fleetPlans.$inferInsert>,
      ex: Executor = db,
    ): Promise<FleetPlanRow | undefined> {
      const [r] = await ex
        .update(fleetPlans)
        .set({ ...patch, updatedAt: new Date() })
        .where(and(eq(fleetPlans.id, id), inArray(fleetPlans.state, [...from])))
        .returning();
      return r;
    },

    /** The selected domains, in domain number order, with their cloud; unknown ids are left out. */
    async domainsByIds(ids: string[]) {
      const out: { id: string; domainName: string; cloudId: string | null; cloudEmail: string | null }[] = [];
      for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
        const rows = await db
          .select({
            id: domains.id,
            domainName: domains.domainName,
            cloudId: domains.cloudId,
            cloudEmail: clouds.email,
          })
          .from(domains)
          .leftJoin(clouds, eq(clouds.id, domains.cloudId))
          .where(inArray(domains.id, ids.slice(i, i + INSERT_CHUNK)))
          .orderBy(asc(domains.domainNo));
        out.push(...rows);
      }
      return out;
    },

    /** The domains of these stored names (a state file's), with their cloud; unknown names are left out. */
    async domainsByNames(names: string[]) {
      const out: { id: string; domainName: string; cloudId: string | null; cloudEmail: string | null }[] = [];
      for (let i = 0; i < names.length; i += INSERT_CHUNK) {
        out.push(
          ...(await db
            .select({
              id: domains.id,
              domainName: domains.domainName,
              cloudId: domains.cloudId,
              cloudEmail: clouds.email,
            })
            .from(domains)
            .leftJoin(clouds, eq(clouds.id, domains.cloudId))
            .where(inArray(domains.domainName, names.slice(i, i + INSERT_CHUNK)))),
        );
      }
      return out;
    },

    async insertItems(
      planId: string,
      items: {
        domainId: string | null;
        domainName: string;
        cloudId: string | null;
        cloudEmail: string | null;
        /** A state plan's: the domain's desired state, or a refusal decided before planning. */
        desired?: unknown;
        outcome?: string;
        reason?: string;
      }[],
      ex: Executor = db,
    ) {
      for (let i = 0; i < items.length; i += INSERT_CHUNK) {
        await ex
          .insert(fleetPlanItems)
          .values(items.slice(i, i + INSERT_CHUNK).map((it, j) => ({ planId, seq: i + j + 1, ...it })));
      }
    },

    async updateItem(planId: string, seq: number, patch: FleetItemPatch) {
      await db
        .update(fleetPlanItems)
        .set(patch)
        .where(and(eq(fleetPlanItems.planId, planId), eq(fleetPlanItems.seq, seq)));
    },

    /**
     * Planned items' results, many in one statement (issue 48: a plan of 10,000 wrote 10,000 statements): the rows
     * travel as one JSON array.
     */
    async updatePlanned(
      planId: string,
      rows: {
        seq: number;
        outcome: string;
        before: string | null;
        after: string | null;
        reason: string | null;
        seen: unknown;
      }[],
    ) {
      if (!rows.length) return;
      await db.execute(sql`
        update fleet_plan_items i
        set outcome = v.outcome, before = v.before, after = v.after, reason = v.reason, seen = v.seen
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          as v(seq int, outcome text, before text, after text, reason text, seen jsonb)
        where i.plan_id = ${planId} and i.seq = v.seq`);
    },

    /** The Cloudflare accounts of a plan's changes (its clouds, by e-mail). */
    async cloudsOf(planId: string): Promise<{ cloudId: string; email: string }[]> {
      const rows = await db
        .selectDistinct({ cloudId: fleetPlanItems.cloudId, email: fleetPlanItems.cloudEmail })
        .from(fleetPlanItems)
        .where(
          and(
            eq(fleetPlanItems.planId, planId),
            eq(fleetPlanItems.outcome, 'change'),
            isNotNull(fleetPlanItems.cloudId),
          ),
        );
      return rows.map((r) => ({ cloudId: r.cloudId!, email: r.email ?? r.cloudId! }));
    },

    /** Items finished per minute since `since`, by status and account (the run's timeline). */
    async finishedPerMinute(planId: string, since: Date) {
      const minute = sql<string>`to_char(date_trunc('minute', ${fleetPlanItems.finishedAt} at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:MI:00"Z"')`;
      const rows = await db
        .select({ minute, status: fleetPlanItems.status, account: fleetPlanItems.cloudEmail, n: count() })
        .from(fleetPlanItems)
        .where(
          and(
            eq(fleetPlanItems.planId, planId),
            eq(fleetPlanItems.outcome, 'change'),
            isNotNull(fleetPlanItems.finishedAt),
            sql`${fleetPlanItems.finishedAt} >= ${since.toISOString()}`,
          ),
        )
        .groupBy(minute, fleetPlanItems.status, fleetPlanItems.cloudEmail);
      return rows.map((r) => ({ ...r, n: Number(r.n) }));
    },

    /** Items still to plan (outcome pending) or to run (a change whose step is pending), in order. */
    async itemsToDo(planId: string, phase: 'plan' | 'run', afterSeq: number, limit: number): Promise<FleetItemRow[]> {
      const where =
        phase === 'plan'
          ? eq(fleetPlanItems.outcome, 'pending')
          : and(eq(fleetPlanItems.outcome, 'change'), eq(fleetPlanItems.status, 'pending'));
      return db
        .select()
        .from(fleetPlanItems)
        .where(and(eq(fleetPlanItems.planId, planId), where, gt(fleetPlanItems.seq, afterSeq)))
        .orderBy(asc(fleetPlanItems.seq))
        .limit(limit);
    },

    async findItem(planId: string, seq: number): Promise<FleetItemRow | undefined> {
      const [r] = await db
        .select()
        .from(fleetPlanItems)
        .where(and(eq(fleetPlanItems.planId, planId), eq(fleetPlanItems.seq, seq)));
      return r;
    },

    async itemsPage(planId: string, q: FleetItemsQuery) {
      const conds: (SQL | undefined)[] = [eq(fleetPlanItems.planId, planId)];
      if (q.outcome) conds.push(eq(fleetPlanItems.outcome, q.outcome));
      if (q.status) conds.push(eq(fleetPlanItems.status, q.status));
      if (q.search) conds.push(ilike(fleetPlanItems.domainName, likePattern(q.search)));
      const where = and(...conds);
      const [items, [total]] = await Promise.all([
        db
          .select()
          .from(fleetPlanItems)
          .where(where)
          .orderBy(asc(fleetPlanItems.seq))
          .limit(PAGE_SIZE)
          .offset(pageOffset(q.page)),
        db.select({ n: count() }).from(fleetPlanItems).where(where),
      ]);
      return { items, itemsCount: Number(total?.n ?? 0) };
    },

    /** Counts by outcome, and of the changes by run status, per cloud. */
    async counts(planId: string) {
      return db
        .select({
          cloudId: fleetPlanItems.cloudId,
          cloudEmail: fleetPlanItems.cloudEmail,
          outcome: fleetPlanItems.outcome,
          status: fleetPlanItems.status,
          n: sql<number>`count(*)::int`,
        })
        .from(fleetPlanItems)
        .where(eq(fleetPlanItems.planId, planId))
        .groupBy(fleetPlanItems.cloudId, fleetPlanItems.cloudEmail, fleetPlanItems.outcome, fleetPlanItems.status);
    },

    /** Steps finished since `since` (for the expected time left). */
    async finishedSince(planId: string, since: Date): Promise<number> {
      const [r] = await db
        .select({ n: count() })
        .from(fleetPlanItems)
        .where(and(eq(fleetPlanItems.planId, planId), gt(fleetPlanItems.finishedAt, since)));
      return Number(r?.n ?? 0);
    },

    /**
     * Takes a pending step to run it; false when it is no longer pending (the run was cancelled meanwhile), so
     * that no new step starts after a cancel, whichever worker holds the run.
     */
    /** Marks a pending step running; `orRunning` (a claim sent again after a lost answer) takes it as it is. */
    async claimItem(planId: string, seq: number, orRunning = false): Promise<boolean> {
      const r = await db
        .update(fleetPlanItems)
        .set({ status: 'running' })
        .where(
          and(
            eq(fleetPlanItems.planId, planId),
            eq(fleetPlanItems.seq, seq),
            inArray(fleetPlanItems.status, orRunning ? ['pending', 'running'] : ['pending']),
          ),
        )
        .returning({ seq: fleetPlanItems.seq });
      return r.length > 0;
    },

    /**
     * Puts steps of the given statuses back to pending (retry failed; a stopped run's interrupted steps). The
     * error stays: a step tried again keeps its last failure until an attempt decides otherwise.
     */
    async resetSteps(planId: string, statuses: string[]): Promise<number> {
      const r = await db
        .update(fleetPlanItems)
        .set({ status: 'pending', finishedAt: null })
        .where(
          and(
            eq(fleetPlanItems.planId, planId),
            eq(fleetPlanItems.outcome, 'change'),
            inArray(fleetPlanItems.status, statuses),
          ),
        )
        .returning({ seq: fleetPlanItems.seq });
      return r.length;
    },

    /**
     * Ends the steps not done (of `statuses`): a step that failed before (tried again, not reached) is failed
     * again with its reason; the others are cancelled. Nothing stays running after its run ended.
     */
    async cancelPending(planId: string, statuses: ('pending' | 'running')[] = ['pending', 'running']) {
      const open = and(
        eq(fleetPlanItems.planId, planId),
        eq(fleetPlanItems.outcome, 'change'),
        inArray(fleetPlanItems.status, statuses),
      );
      await db
        .update(fleetPlanItems)
        .set({ status: 'failed', finishedAt: new Date() })
        .where(and(open, isNotNull(fleetPlanItems.error)));
      await db
        .update(fleetPlanItems)
        .set({ status: 'cancelled', finishedAt: new Date() })
        .where(and(open, isNull(fleetPlanItems.error)));
    },

    /** The steps of a run that changed their domain, after item `afterSeq` (a revert is planned from them). */
    async changedItems(planId: string, afterSeq: number, limit: number): Promise<FleetItemRow[]> {
      return db
        .select()
        .from(fleetPlanItems)
        .where(
          and(
            eq(fleetPlanItems.planId, planId),
            eq(fleetPlanItems.outcome, 'change'),
            // A state row skipped for a part that moved may have changed its other parts (their undo is kept).
            or(inArray(fleetPlanItems.status, ['done', 'changed_failing']), isNotNull(fleetPlanItems.undo)),
            gt(fleetPlanItems.seq, afterSeq),
          ),
        )
        .orderBy(asc(fleetPlanItems.seq))
        .limit(limit);
    },

    /** One batch of the CSV, after item `afterSeq`. */
    async exportBatch(planId: string, afterSeq: number, limit: number): Promise<FleetItemRow[]> {
      return db
        .select()
        .from(fleetPlanItems)
        .where(and(eq(fleetPlanItems.planId, planId), gt(fleetPlanItems.seq, afterSeq)))
        .orderBy(asc(fleetPlanItems.seq))
        .limit(limit);
    },
  };
}
export type FleetRepository = ReturnType<typeof createFleetRepository>;
