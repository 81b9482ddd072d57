import { and, asc, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { healthMark, type HealthState } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import {
  auditLog,
  domainHealth,
  domainHealthChecks,
  domainHealthEvents,
  domains,
  healthCycle,
} from '../../db/schema/index.ts';
import type { CheckResult } from './health.checks.ts';

export type StoredCheck = typeof domainHealthChecks.$inferSelect;

const rowsOf = <T>(res: unknown) => (res as { rows: T[] }).rows;

export function createHealthRepository(db: Db) {
  return {
    checksOf: (domainId: string, ex: Executor = db) =>
      ex.select().from(domainHealthChecks).where(eq(domainHealthChecks.domainId, domainId)),

    historyOf: (domainId: string, limit: number, ex: Executor = db) =>
      ex
        .select()
        .from(domainHealthEvents)
        .where(eq(domainHealthEvents.domainId, domainId))
        .orderBy(desc(domainHealthEvents.at), desc(domainHealthEvents.id))
        .limit(limit),

    /**
     * Stores the results of one run: `since` and an event only where the state changed, then the domain's
     * summary from every stored check, written to the domain only when it changed (the list's versions move
     * only then). In one transaction with the domain's row locked, so two runs of a domain do not interleave.
     */
    async store(domainId: string, results: CheckResult[], at: Date, mode: 'cheap' | 'full' | 'fix', tx: Executor) {
      const [locked] = await tx
        .select({
          state: domains.healthState,
          problems: domains.healthProblems,
          failing: domains.healthFailing,
          checks: domains.healthChecks,
        })
        .from(domains)
        .where(eq(domains.id, domainId))
        .for('no key update');
      if (!locked) return false;
      const before = new Map(
        (await tx.select().from(domainHealthChecks).where(eq(domainHealthChecks.domainId, domainId))).map((c) => [
          c.checkKey,
          c,
        ]),
      );
      const changed = results.filter((res) => before.get(res.check)?.state !== res.state);
      // A state change moves the kept counts (triggers, migration 0028) over two statements (new rows, then
      // updated ones): one such writer at a time, so two of them never lock the count rows in opposite orders.
      if (changed.length)
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('domain_health_counts', 0))`);
      if (results.length) {
        await tx
          .insert(domainHealthChecks)
          .values(
            results.map((res) => ({
              domainId,
              checkKey: res.check,
              state: res.state,
              observed: res.observed,
              expected: res.expected,
              reason: res.reason,
              since: at,
              lastRun: at,
            })),
          )
          .onConflictDoUpdate({
            target: [domainHealthChecks.domainId, domainHealthChecks.checkKey],
            set: {
              state: sql`excluded.state`,
              observed: sql`excluded.observed`,
              expected: sql`excluded.expected`,
              reason: sql`excluded.reason`,
              // "Since" is when the state last changed, across restarts.
              since: sql`case when ${domainHealthChecks.state} = excluded.state then ${domainHealthChecks.since} else excluded.since end`,
              lastRun: sql`excluded.last_run`,
            },
          });
      }
      if (changed.length) {
        await tx.insert(domainHealthEvents).values(
          changed.map((res) => ({
            domainId,
            checkKey: res.check,
            fromState: before.get(res.check)?.state ?? null,
            toState: res.state,
            observed: res.observed,
            at,
          })),
        );
      }
      const all = new Map([...before].map(([k, c]) => [k, c.state as HealthState]));
      for (const res of results) all.set(res.check, res.state);
      const states = [...all.values()];
      const order: HealthState[] = ['failing', 'warning', 'unknown', 'ok', 'na'];
      const worst = order.find((s) => states.includes(s)) ?? null;
      const problems = states.filter((s) => s === 'failing' || s === 'warning' || s === 'unknown').length;
      const failing = [...all]
        .filter(([, s]) => s === 'failing')
        .map(([k]) => k)
        .sort();
      const marks = [...all].map(([k, s]) => healthMark(k, s)).sort();
      if (
        locked.state !== worst ||
        locked.problems !== problems ||
        locked.failing.join() !== failing.join() ||
        locked.checks.join() !== marks.join()
      ) {
        await tx
          .update(domains)
          .set({ healthState: worst, healthProblems: problems, healthFailing: failing, healthChecks: marks })
          .where(eq(domains.id, domainId));
      }
      // A fix re-reads only its own check: the domain's run times stay those of its last cheap and full runs.
      if (mode === 'fix') return true;
      const stamp = mode === 'full' ? { cheapAt: at, fullAt: at } : { cheapAt: at };
      await tx
        .insert(domainHealth)
        .values({ domainId, ...stamp })
        .onConflictDoUpdate({ target: domainHealth.domainId, set: stamp });
      return true;
    },

    /**
     * Domains due for a run, the longest-unchecked first (never checked before all): `due` is the time before
     * which the last run counts as stale.
     */
    async due(mode: 'cheap' | 'full', due: Date, limit: number, ex: Executor = db) {
      const at = mode === 'full' ? domainHealth.fullAt : domainHealth.cheapAt;
      return ex
        .select({ id: domains.id, cloudId: domains.cloudId })
        .from(domains)
        .leftJoin(domainHealth, eq(domainHealth.domainId, domains.id))
        .where(or(isNull(at), lt(at, due)))
        .orderBy(sql`${at} asc nulls first`, asc(domains.domainNo))
        .limit(limit);
    },

    /** Domains per cloud (null: without a cloud), for the cycle's estimate. */
    async domainsPerCloud(ex: Executor = db) {
      return ex
        .select({ cloudId: domains.cloudId, n: sql<number>`count(*)::int` })
        .from(domains)
        .groupBy(domains.cloudId);
    },

    /** The value of the last successful setting change of the domain through the console (its audit entry). */
    async lastSet(domainId: string, action: string, ex: Executor = db): Promise<string | null> {
      const [row] = await ex
        .select({ value: sql<string | null>`${auditLog.details} -> 'sent' ->> 'value'` })
        .from(auditLog)
        .where(
          and(
            eq(auditLog.entity, 'domains'),
            eq(auditLog.entityId, domainId),
            eq(auditLog.action, action),
            sql`${auditLog.details} ->> 'outcome' = 'ok'`,
          ),
        )
        .orderBy(desc(auditLog.auditNo))
        .limit(1);
      return row?.value ?? null;
    },

    async summary(ex: Executor = db) {
      const byDomain = rowsOf<{ state: string | null; n: number }>(
        await ex.execute(sql`select health_state as state, count(*)::int as n from domains group by health_state`),
      );
      // Kept by triggers as results are written (migration 0028): grouping ~1.2M rows at 100k domains is not.
      const byCheck = rowsOf<{ check: string; state: string; n: number }>(
        await ex.execute(sql`select check_key as check, state, n::int as n from domain_health_counts where n <> 0`),
      );
      // The most recent turns to failing of checks that are still failing.
      const recent = rowsOf<{ domain_id: string; domain_name: string; check: string; at: Date | string }>(
        await ex.execute(sql`select e.domain_id, d.domain_name_unicode as domain_name, e.check_key as check, e.at
          from domain_health_events e
          join domains d on d.id = e.domain_id
          join domain_health_checks c on c.domain_id = e.domain_id and c.check_key = e.check_key and c.state = 'failing'
          where e.to_state = 'failing'
          order by e.at desc, e.id desc limit 10`),
      );
      const [cycle] = await ex.select().from(healthCycle).where(eq(healthCycle.id, 1));
      return { byDomain, byCheck, recent, cycle };
    },

    async saveCycle(v: { at: Date; fullCycleHours: number | null; cheapCycleHours: number | null; message: string }) {
      await db
        .insert(healthCycle)
        .values({ id: 1, ...v })
        .onConflictDoUpdate({ target: healthCycle.id, set: v });
    },

    /** The ids of these domains that exist. */
    async existing(ids: string[], ex: Executor = db) {
      if (!ids.length) return [];
      const rows = await ex.select({ id: domains.id }).from(domains).where(inArray(domains.id, ids));
      return rows.map((r) => r.id);
    },
  };
}
export type HealthRepository = ReturnType<typeof createHealthRepository>;
