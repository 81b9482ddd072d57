import { and, count, desc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { AUDIT_SIGN_IN_ACTIONS, DASHBOARD_LIST_SIZE } from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { auditLog, clouds, domains, jobs, proxies, servers } from '../../db/schema/index.ts';

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
