import { and, count, desc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import {
  AUDIT_SIGN_IN_ACTIONS,
  DASHBOARD_LIST_SIZE,
  TRAFFIC_FALL_MIN_PERCENT,
  TRAFFIC_FALL_MIN_REQUESTS,
  TRAFFIC_FALLS_SIZE,
} from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import {
  auditLog,
  clouds,
  domains,
  domainTraffic,
  domainTrafficDays,
  jobs,
  proxies,
  servers,
} from '../../db/schema/index.ts';

const ACTIVE_JOB_STATES = ['queued', 'running'] as const;

/**
 * The dashboard's figures, each one aggregate statement: one pass over a table with FILTERed counts, so the
 * cost is a single scan at any size (100,000 domains), and short lists that walk an index with a LIMIT.
 */
export function createDashboardRepository(db: Db) {
  return {
    /** `today` and `until` are dates (YYYY-MM-DD); expired is before today, soon is today..until inclusive. */
    async domainCounts(today: string, until: string) {
      const exp = domains.domainRegistratorExpirationDate;
      const [r] = await db
        .select({
          total: count(),
          active: sql<number>`count(*) filter (where ${domains.status} = 'active')`.mapWith(Number),
          inactive: sql<number>`count(*) filter (where ${domains.status} = 'inactive')`.mapWith(Number),
          expired: sql<number>`count(*) filter (where ${exp} < ${today})`.mapWith(Number),
          expiringSoon: sql<number>`count(*) filter (where ${exp} >= ${today} and ${exp} <= ${until})`.mapWith(Number),
        })
        .from(domains);
      return r!;
    },
    async expiringDomains(today: string, until: string) {
      const exp = domains.domainRegistratorExpirationDate;
      return db
        .select({ _id: domains.id, domainName: domains.domainNameUnicode, expirationDate: sql<string>`${exp}::text` })
        .from(domains)
        .where(and(sql`${exp} >= ${today}`, sql`${exp} <= ${until}`))
        .orderBy(exp, domains.domainNo)
        .limit(DASHBOARD_LIST_SIZE);
    },
    /** The fleet's kept traffic per day from `since` (one pass over the days' index). */
    async trafficDays(since: string) {
      const t = domainTrafficDays;
      return db
        .select({
          date: sql<string>`${t.day}::text`,
          requests: sql<number>`coalesce(sum(${t.requests}), 0)`.mapWith(Number),
          pageViews: sql<number>`coalesce(sum(${t.pageViews}), 0)`.mapWith(Number),
          visits: sql<number>`coalesce(sum(${t.visits}), 0)`.mapWith(Number),
          threats: sql<number>`coalesce(sum(${t.threats}), 0)`.mapWith(Number),
        })
        .from(t)
        .where(sql`${t.day} >= ${since}`)
        .groupBy(t.day)
        .orderBy(t.day);
    },
    async trafficDomainsRead() {
      const [r] = await db.select({ n: count() }).from(domainTraffic);
      return r?.n ?? 0;
    },
    /**
     * The domains whose requests fell most from the previous week [p1, p2] to the week [w1, w2] (by ratio), among
     * those with at least TRAFFIC_FALL_MIN_REQUESTS the week before that fell by TRAFFIC_FALL_MIN_PERCENT or more.
     */
    async trafficFalls(w: { from: string; to: string }, p: { from: string; to: string }) {
      const t = domainTrafficDays;
      const week = sql<number>`coalesce(sum(${t.requests}) filter (where ${t.day} between ${w.from} and ${w.to}), 0)`;
      const prev = sql<number>`coalesce(sum(${t.requests}) filter (where ${t.day} between ${p.from} and ${p.to}), 0)`;
      return db
        .select({
          _id: domains.id,
          domainName: domains.domainNameUnicode,
          requests: week.mapWith(Number),
          previous: prev.mapWith(Number),
        })
        .from(t)
        .innerJoin(domains, eq(domains.id, t.domainId))
        .where(sql`${t.day} between ${p.from} and ${w.to}`)
        .groupBy(domains.id, domains.domainNameUnicode)
        .having(
          sql`${prev} >= ${TRAFFIC_FALL_MIN_REQUESTS} and ${week} <= ${prev} * ${1 - TRAFFIC_FALL_MIN_PERCENT / 100}`,
        )
        .orderBy(sql`${week}::float8 / ${prev}`, domains.domainNameUnicode)
        .limit(TRAFFIC_FALLS_SIZE);
    },
    async serverCounts() {
      const [r] = await db
        .select({
          total: count(),
          online: sql<number>`count(*) filter (where ${servers.status} = 'online')`.mapWith(Number),
          offline: sql<number>`count(*) filter (where ${servers.status} = 'offline')`.mapWith(Number),
          unknown: sql<number>`count(*) filter (where ${servers.status} = 'unknown')`.mapWith(Number),
        })
        .from(servers);
      return r!;
    },
    async proxyCounts() {
      const [r] = await db
        .select({
          total: count(),
          failing: sql<number>`count(*) filter (where ${proxies.checkStatus} = 'error')`.mapWith(Number),
          unchecked: sql<number>`count(*) filter (where ${proxies.checkStatus} is null)`.mapWith(Number),
        })
        .from(proxies);
      return r!;
    },
    async cloudCount() {
      const [r] = await db.select({ total: count() }).from(clouds);
      return r!.total;
    },
    latestChanges() {
      return (
        db
          .select({
            id: auditLog.id,
            at: auditLog.at,
            username: auditLog.username,
            action: auditLog.action,
            entity: auditLog.entity,
            entityId: auditLog.entityId,
            diff: auditLog.diff,
            details: auditLog.details,
          })
          .from(auditLog)
          // Changes, not sign-ins: a flood of sign-ins must not push the latest change out of sight.
          .where(notInArray(auditLog.action, [...AUDIT_SIGN_IN_ACTIONS]))
          .orderBy(desc(auditLog.auditNo))
          .limit(DASHBOARD_LIST_SIZE)
      );
    },
    /** Active jobs of the given areas (null: all), newest first, and how many there are. */
    async activeJobs(areas: string[] | null) {
      // The operator's jobs, as the Jobs screen lists them by default: not the schedule's housekeeping.
      const where = and(
        inArray(jobs.state, [...ACTIVE_JOB_STATES]),
        eq(jobs.periodic, false),
        areas ? inArray(jobs.area, areas.length ? areas : ['-']) : undefined,
      );
      const [rows, [total]] = await Promise.all([
        db.select().from(jobs).where(where).orderBy(desc(jobs.jobNo)).limit(DASHBOARD_LIST_SIZE),
        db.select({ n: count() }).from(jobs).where(where),
      ]);
      return { rows, total: total?.n ?? 0 };
    },
  };
}
export type DashboardRepository = ReturnType<typeof createDashboardRepository>;
