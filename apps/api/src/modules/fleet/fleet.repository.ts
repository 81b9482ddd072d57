import { and, asc, eq, inArray, isNotNull, or, sql } from 'drizzle-orm';
import type { FleetItemsQuery, FleetPlanState } from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { clouds, domains, planItems } from '../../db/schema/index.ts';
import {
  mergeDetail,
  plansOfKind,
  type PlanItemPatch,
  type PlanItemRow,
  type PlanPatch,
  type PlanRow,
  type PlansRepository,
} from '../plans/plans.repository.ts';
import type { PlannedRow } from './fleet.batching.ts';

/** A fleet plan as its service reads it: the plan row with its action (kept in `detail`). */
export type FleetPlanRow = Omit<PlanRow, 'kind' | 'detail' | 'state'> & {
  action: Record<string, unknown>;
  state: FleetPlanState;
};
/** A domain as a fleet plan's item is made of it (a selected domain, a state file's, a revert's row). */
export type FleetItemInput = {
  domainId: string | null;
  domainName: string;
  cloudId: string | null;
  cloudEmail: string | null;
  /** A state plan's desired state of the domain (the file's entry, firewall templates resolved to ids). */
  desired?: unknown;
};

/** Rows read per statement by domain ids or names. */
const LOOKUP_CHUNK = 2000;
const DETAIL_KEYS = ['before', 'after', 'seen', 'changes'] as const;
/** An item's Cloudflare account, by its e-mail (kept in `detail`). */
const emailColumn = sql<string | null>`${planItems.detail}->>'cloudEmail'`;
/** A plan's items planned as a change. */
const changesOf = (planId: string) => and(eq(planItems.planId, planId), eq(planItems.outcome, 'change'));

const planOf = (r: PlanRow): FleetPlanRow => {
  const { kind: _k, detail, ...rest } = r;
  return { ...rest, action: (detail.action ?? {}) as Record<string, unknown>, state: r.state as FleetPlanState };
};

/** One domain of a fleet plan: the item row with the fleet's own facts (kept in `detail`) spelt out. */
export const fleetItemOf = (r: PlanItemRow) => {
  const { name, nameUnicode: _u, lane, detail: d, ...rest } = r;
  return {
    ...rest,
    domainName: name,
    cloudId: lane,
    cloudEmail: (d.cloudEmail as string | undefined) ?? null,
    before: (d.before as string | undefined) ?? null,
    after: (d.after as string | undefined) ?? null,
    /** What planning read, compared again at run time (a change made meanwhile is not overwritten blindly). */
    seen: d.seen ?? null,
    desired: d.desired ?? null,
    /** A state plan's differences, one per record or setting (FleetStateChangeSchema). */
    changes: d.changes ?? null,
  };
};
export type FleetItemRow = ReturnType<typeof fleetItemOf>;
type FleetItemPatch = Omit<PlanItemPatch, 'detail'> & Partial<Pick<FleetItemRow, (typeof DETAIL_KEYS)[number]>>;

/** A fleet item's patch as the items table takes it: its own facts merged into `detail`. */
const patchOf = (patch: FleetItemPatch): PlanItemPatch => {
  const own: Record<string, unknown> = {};
  const cols: Record<string, unknown> = { ...patch };
  for (const k of DETAIL_KEYS)
    if (k in cols) {
      own[k] = cols[k] ?? null;
      delete cols[k];
    }
  if (Object.keys(own).length) cols.detail = mergeDetail(own);
  return cols as PlanItemPatch;
};

/** The fleet kind's plans (decision 084): its rows over the shared tables, and the lookups that are its own. */
export function createFleetRepository(db: Db, plans: PlansRepository) {
  /** Domains whose `column` is one of `values`, with their cloud, a chunk of values to a statement. */
  const domainsWhere = async (column: typeof domains.id | typeof domains.domainName, values: string[]) => {
    const out: { id: string; domainName: string; cloudId: string | null; cloudEmail: string | null }[] = [];
    for (let i = 0; i < values.length; i += LOOKUP_CHUNK) {
      const rows = await db
        .select({ id: domains.id, domainName: domains.domainName, cloudId: domains.cloudId, cloudEmail: clouds.email })
        .from(domains)
        .leftJoin(clouds, eq(clouds.id, domains.cloudId))
        .where(inArray(column, values.slice(i, i + LOOKUP_CHUNK)))
        .orderBy(asc(domains.domainNo));
      out.push(...rows);
    }
    return out;
  };

  return {
    /** A plan and its items, together or not at all (never a plan "planning" with no items and no job). */
    insertPlan: (
      v: { action: Record<string, unknown> } & Pick<PlanPatch, 'selection' | 'state' | 'total' | 'createdBy'>,
      /** Each with its outcome and reason when it is refused before planning. */
      items: (FleetItemInput & { outcome?: string; reason?: string })[],
    ) =>
      db.transaction(async (tx) => {
        const { action, ...rest } = v;
        const p = planOf(await plans.insertPlan('fleet', { ...rest, detail: { action } }, tx));
        await plans.insertItems(
          p.id,
          items.map(({ domainName, cloudId, cloudEmail, desired, ...it }) => ({
            ...it,
            name: domainName,
            lane: cloudId,
            detail: desired === undefined ? { cloudEmail } : { cloudEmail, desired },
          })),
          tx,
        );
        return p;
      }),

    ...plansOfKind<FleetPlanRow, FleetPlanState>(plans, 'fleet', planOf),

    /** The selected domains, in domain number order, with their cloud; unknown ids are left out. */
    domainsByIds: (ids: string[]) => domainsWhere(domains.id, ids),
    /** The domains of these stored names (a state file's), with their cloud; unknown names are left out. */
    domainsByNames: (names: string[]) => domainsWhere(domains.domainName, names),

    updateItem: (planId: string, seq: number, patch: FleetItemPatch) => plans.updateItem(planId, seq, patchOf(patch)),

    /**
     * Planned items' results, many in one statement (issue 48: a plan of 10,000 wrote 10,000 statements): the rows
     * travel as one JSON array.
     */
    async updatePlanned(planId: string, rows: PlannedRow[]) {
      if (!rows.length) return;
      await db.execute(sql`
        update plan_items i
        set outcome = v.outcome, reason = v.reason,
          detail = i.detail || jsonb_build_object('before', v.before, 'after', v.after, 'seen', v.seen)
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          as v(seq int, outcome text, before text, after text, reason text, seen jsonb)
        where i.plan_id = ${planId} and i.seq = v.seq`);
    },

    /** The Cloudflare accounts of a plan's changes (its clouds, by e-mail). */
    async cloudsOf(planId: string): Promise<{ cloudId: string; email: string }[]> {
      const rows = await db
        .selectDistinct({ cloudId: planItems.lane, email: emailColumn })
        .from(planItems)
        .where(and(changesOf(planId), isNotNull(planItems.lane)));
      return rows.map((r) => ({ cloudId: r.cloudId!, email: r.email ?? r.cloudId! }));
    },

    /** Items finished per minute since `since`, by status and account (the run's timeline). */
    async finishedPerMinute(planId: string, since: Date) {
      const minute = sql<string>`to_char(date_trunc('minute', ${planItems.finishedAt} at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:MI:00"Z"')`;
      const rows = await db
        .select({ minute, status: planItems.status, account: emailColumn, n: sql<number>`count(*)::int` })
        .from(planItems)
        .where(
          and(
            changesOf(planId),
            isNotNull(planItems.finishedAt),
            sql`${planItems.finishedAt} >= ${since.toISOString()}`,
          ),
        )
        .groupBy(minute, planItems.status, emailColumn);
      return rows.map((r) => ({ ...r, n: Number(r.n) }));
    },

    async findItem(planId: string, seq: number): Promise<FleetItemRow | undefined> {
      const r = await plans.findItem(planId, seq);
      return r && fleetItemOf(r);
    },

    async itemsPage(planId: string, q: FleetItemsQuery) {
      const res = await plans.itemsPage(planId, q);
      return { items: res.items.map(fleetItemOf), itemsCount: res.itemsCount };
    },

    /** Counts by outcome, and of the changes by run status, per cloud. */
    async counts(planId: string) {
      return db
        .select({
          cloudId: planItems.lane,
          cloudEmail: emailColumn,
          outcome: planItems.outcome,
          status: planItems.status,
          n: sql<number>`count(*)::int`,
        })
        .from(planItems)
        .where(eq(planItems.planId, planId))
        .groupBy(planItems.lane, emailColumn, planItems.outcome, planItems.status);
    },

    finishedSince: (planId: string, since: Date) => plans.finishedSince(planId, since),

    /** The steps of a run that changed their domain, after item `afterSeq` (a revert is planned from them). */
    async changedItems(planId: string, afterSeq: number, limit: number): Promise<FleetItemRow[]> {
      const rows = await db
        .select()
        .from(planItems)
        .where(
          and(
            changesOf(planId),
            // A state row skipped for a part that moved may have changed its other parts (their undo is kept).
            or(inArray(planItems.status, ['done', 'changed_failing']), isNotNull(planItems.undo)),
            sql`${planItems.seq} > ${afterSeq}`,
          ),
        )
        .orderBy(asc(planItems.seq))
        .limit(limit);
      return rows.map(fleetItemOf);
    },

    /** One batch of the CSV, after item `afterSeq`. */
    exportBatch: async (planId: string, afterSeq: number, limit: number): Promise<FleetItemRow[]> =>
      (await plans.items(planId, {}, afterSeq, limit)).map(fleetItemOf),
  };
}
export type FleetRepository = ReturnType<typeof createFleetRepository>;
