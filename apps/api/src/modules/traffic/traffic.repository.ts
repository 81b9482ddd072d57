import { and, asc, eq, gte, isNotNull, lt, lte, or, sql, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { domains, domainTraffic, domainTrafficDays } from '../../db/schema/index.ts';

export type TrafficDayRow = typeof domainTrafficDays.$inferInsert;

/** The kept traffic of each domain: its days and when Cloudflare was last read for it. */
export function createTrafficRepository(db: Db) {
  return {
    async readState(domainId: string) {
      const [r] = await db.select().from(domainTraffic).where(eq(domainTraffic.domainId, domainId));
      return r ?? null;
    },

    async days(domainId: string, since: string, until: string) {
      return db
        .select()
        .from(domainTrafficDays)
        .where(
          and(
            eq(domainTrafficDays.domainId, domainId),
            gte(domainTrafficDays.day, since),
            lte(domainTrafficDays.day, until),
          ),
        )
        .orderBy(asc(domainTrafficDays.day));
    },

    /**
     * Keeps what was read: the days given replace those kept for the same dates, days before `keepFrom` go, and
     * a read from another zone than last time (the domain was linked anew) drops the old zone's days first.
     */
    async keep(o: { domainId: string; zoneId: string; readAt: Date; keepFrom: string; days: TrafficDayRow[] }) {
      await db.transaction(async (tx) => {
        const [prev] = await tx
          .select({ zoneId: domainTraffic.zoneId })
          .from(domainTraffic)
          .where(eq(domainTraffic.domainId, o.domainId));
        if (prev && prev.zoneId !== o.zoneId) {
          await tx.delete(domainTrafficDays).where(eq(domainTrafficDays.domainId, o.domainId));
        }
        await tx
          .delete(domainTrafficDays)
          .where(and(eq(domainTrafficDays.domainId, o.domainId), lt(domainTrafficDays.day, o.keepFrom)));
        if (o.days.length > 0) {
          await tx
            .insert(domainTrafficDays)
            .values(o.days)
            .onConflictDoUpdate({
              target: [domainTrafficDays.domainId, domainTrafficDays.day],
              set: {
                requests: sql`excluded.requests`,
                pageViews: sql`excluded.page_views`,
                visits: sql`excluded.visits`,
                threats: sql`excluded.threats`,
                bytes: sql`excluded.bytes`,
                status2xx: sql`excluded.status_2xx`,
                status3xx: sql`excluded.status_3xx`,
                status4xx: sql`excluded.status_4xx`,
                status5xx: sql`excluded.status_5xx`,
              },
            });
        }
        await tx
          .insert(domainTraffic)
          .values({ domainId: o.domainId, zoneId: o.zoneId, readAt: o.readAt, error: null })
          .onConflictDoUpdate({
            target: domainTraffic.domainId,
            set: { zoneId: o.zoneId, readAt: o.readAt, error: null },
          });
      });
    },

    /** A read that failed: its reason is kept beside the days read before, and the domain waits its turn again. */
    async failed(o: { domainId: string; zoneId: string; at: Date; error: string }) {
      await db
        .insert(domainTraffic)
        .values({ domainId: o.domainId, zoneId: o.zoneId, readAt: o.at, error: o.error })
        .onConflictDoUpdate({ target: domainTraffic.domainId, set: { readAt: o.at, error: o.error } });
    },

    /** Domains with a zone whose traffic was never read or read before `before`, never-read and oldest first. */
    async due(before: Date, limit: number) {
      return db
        .select({ id: domains.id })
        .from(domains)
        .leftJoin(domainTraffic, eq(domainTraffic.domainId, domains.id))
        .where(
          and(
            isNotNull(domains.cloudZoneId),
            isNotNull(domains.cloudId),
            or(isNull(domainTraffic.readAt), lt(domainTraffic.readAt, before)),
          ),
        )
        .orderBy(sql`${domainTraffic.readAt} asc nulls first`, asc(domains.domainNo))
        .limit(limit);
    },
  };
}
export type TrafficRepository = ReturnType<typeof createTrafficRepository>;
