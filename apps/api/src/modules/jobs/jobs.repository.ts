import { and, count, desc, eq, gte, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { PAGE_SIZE, type JobListQuery, type ListResult } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { jobs, type JobState } from '../../db/schema/index.ts';
import { pageOffset, searchWhere } from '../../http/list-query.ts';

export type JobRow = typeof jobs.$inferSelect;
export type JobInsert = Omit<typeof jobs.$inferInsert, 'id' | 'jobNo'> & { id?: string };
export type JobPatch = Partial<Omit<typeof jobs.$inferInsert, 'id' | 'jobNo' | 'kind' | 'area'>>;

const ACTIVE: JobState[] = ['queued', 'running'];
const silentFor = (seconds: number) =>
  sql`coalesce(${jobs.heartbeatAt}, ${jobs.updatedAt}) < now() - make_interval(secs => ${seconds})`;

export function createJobsRepository(db: Db) {
  return {
    async insert(row: JobInsert, ex: Executor = db): Promise<JobRow> {
      const [r] = await ex.insert(jobs).values(row).returning();
      return r!;
    },
    /**
     * A periodic job's row, unless a job of its kind (not of a domain) is still queued or running: the period's
     * own, or one taken back from a silent worker. Every process's scheduler asks at once, so the look and the
     * insert hold a lock per kind until the transaction ends.
     */
    async insertUnlessActive(row: JobInsert): Promise<JobRow | undefined> {
      return db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`fleetdesk.jobs.${row.kind}`}))`);
        const [active] = await tx
          .select({ id: jobs.id })
          .from(jobs)
          .where(and(eq(jobs.kind, row.kind), isNull(jobs.domainId), inArray(jobs.state, ACTIVE)))
          .limit(1);
        if (active) return undefined;
        const [r] = await tx.insert(jobs).values(row).returning();
        return r!;
      });
    },
    async find(id: string, ex: Executor = db): Promise<JobRow | undefined> {
      const [r] = await ex.select().from(jobs).where(eq(jobs.id, id));
      return r;
    },
    /** The active job of a kind on a domain, for the 409 that names it. */
    async findActive(kind: string, domainId: string, ex: Executor = db): Promise<JobRow | undefined> {
      const [r] = await ex
        .select()
        .from(jobs)
        .where(and(eq(jobs.kind, kind), eq(jobs.domainId, domainId), inArray(jobs.state, ACTIVE)));
      return r;
    },
    /** Jobs of the given areas that ended in each of the last `hours` hours, by end state (UTC hours). */
    async endedPerHour(
      hours: number,
      areas: string[] | null,
      periodic: 'include' | 'only' | undefined,
      ex: Executor = db,
    ) {
      const since = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - (hours - 1) * 3_600_000);
      const conds: (SQL | undefined)[] = [gte(jobs.finishedAt, since)];
      if (areas) conds.push(inArray(jobs.area, areas.length ? areas : ['-']));
      if (periodic === 'only') conds.push(eq(jobs.periodic, true));
      else if (periodic !== 'include') conds.push(eq(jobs.periodic, false));
      const hour = sql<string>`to_char(date_trunc('hour', ${jobs.finishedAt} at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:00:00"Z"')`;
      const rows = await ex
        .select({ hour, state: jobs.state, n: count() })
        .from(jobs)
        .where(and(...conds.filter(Boolean)))
        .groupBy(hour, jobs.state);
      return { since, rows: rows.map((r) => ({ hour: r.hour, state: r.state, n: Number(r.n) })) };
    },
    /** Jobs of the given areas, newest first; `active` means queued or running. */
    async list(q: JobListQuery, areas: string[] | null, ex: Executor = db): Promise<ListResult<JobRow>> {
      const conds: (SQL | undefined)[] = [];
      if (areas) conds.push(inArray(jobs.area, areas.length ? areas : ['-']));
      if (q.id) conds.push(eq(jobs.id, q.id));
      if (q.domainId) conds.push(eq(jobs.domainId, q.domainId));
      if (q.kind) conds.push(eq(jobs.kind, q.kind));
      if (q.periodic === 'only') conds.push(eq(jobs.periodic, true));
      else if (q.periodic !== 'include' && !q.kind && !q.id) conds.push(eq(jobs.periodic, false));
      if (q.state === 'active') conds.push(inArray(jobs.state, ACTIVE));
      else if (q.state) conds.push(eq(jobs.state, q.state));
      conds.push(searchWhere(q.search, [jobs.domainName, jobs.kind, jobs.error]));
      const where = and(...conds.filter(Boolean));
      const [rows, [total]] = await Promise.all([
        ex.select().from(jobs).where(where).orderBy(desc(jobs.jobNo)).limit(PAGE_SIZE).offset(pageOffset(q.page)),
        ex.select({ n: count() }).from(jobs).where(where),
      ]);
      return { items: rows, itemsCount: total?.n ?? 0 };
    },
    async update(id: string, patch: JobPatch, ex: Executor = db): Promise<JobRow | undefined> {
      const [r] = await ex
        .update(jobs)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(jobs.id, id))
        .returning();
      return r;
    },
    /** Updates only while the job is in one of `from`; undefined when it was not (someone else moved it). */
    async transition(id: string, from: JobState[], patch: JobPatch, ex: Executor = db): Promise<JobRow | undefined> {
      const [r] = await ex
        .update(jobs)
        .set({ ...patch, updatedAt: new Date() })
        .where(and(eq(jobs.id, id), inArray(jobs.state, from)))
        .returning();
      return r;
    },
    /** Writes progress (and steps) of a running job and answers whether a cancel was asked for. */
    async progress(id: string, patch: Pick<JobPatch, 'progress' | 'steps'>, ex: Executor = db) {
      const [r] = await ex
        .update(jobs)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(jobs.id, id))
        .returning({ cancelRequested: jobs.cancelRequested, state: jobs.state });
      return r;
    },
    /**
     * The worker's heartbeat: undefined when the job is no longer this delivery's (taken back after the worker
     * was thought dead, or finished elsewhere), else whether a cancel was asked for.
     */
    async heartbeat(id: string, bossId: string, ex: Executor = db) {
      const [r] = await ex
        .update(jobs)
        .set({ heartbeatAt: sql`now()` })
        .where(and(eq(jobs.id, id), eq(jobs.bossId, bossId), eq(jobs.state, 'running')))
        .returning({ cancelRequested: jobs.cancelRequested });
      return r;
    },
    /** Running jobs whose worker has not been heard from for `seconds` (by the database's clock). */
    async silent(seconds: number, limit = 100, ex: Executor = db): Promise<JobRow[]> {
      return ex
        .select()
        .from(jobs)
        .where(and(eq(jobs.state, 'running'), silentFor(seconds)))
        .orderBy(jobs.jobNo)
        .limit(limit);
    },
    /** Moves a silent running job, still on delivery `bossId`, to `patch`; undefined when it moved meanwhile. */
    async takeBack(id: string, bossId: string | null, seconds: number, patch: JobPatch, ex: Executor = db) {
      const [r] = await ex
        .update(jobs)
        .set({ ...patch, updatedAt: new Date() })
        .where(
          and(
            eq(jobs.id, id),
            eq(jobs.state, 'running'),
            bossId ? eq(jobs.bossId, bossId) : sql`${jobs.bossId} is null`,
            silentFor(seconds),
          ),
        )
        .returning();
      return r;
    },
    /** Like `transition`, but only while the job is still on delivery `bossId` (not taken back meanwhile). */
    async transitionOwned(id: string, bossId: string, from: JobState[], patch: JobPatch, ex: Executor = db) {
      const [r] = await ex
        .update(jobs)
        .set({ ...patch, updatedAt: new Date() })
        .where(and(eq(jobs.id, id), eq(jobs.bossId, bossId), inArray(jobs.state, from)))
        .returning();
      return r;
    },
    async cancelRequested(id: string, ex: Executor = db): Promise<boolean> {
      const [r] = await ex.select({ c: jobs.cancelRequested }).from(jobs).where(eq(jobs.id, id));
      return r?.c ?? false;
    },
    /** Active jobs untouched since `before`: candidates for the reconcile sweep. */
    async stale(before: Date, limit = 100, ex: Executor = db): Promise<JobRow[]> {
      return ex
        .select()
        .from(jobs)
        .where(and(inArray(jobs.state, ACTIVE), lt(jobs.updatedAt, before)))
        .orderBy(jobs.updatedAt)
        .limit(limit);
    },
    async remove(id: string, ex: Executor = db) {
      await ex.delete(jobs).where(eq(jobs.id, id));
    },
    /** Jobs by kind and state (the metrics' gauge). */
    async countByKindAndState(ex: Executor = db) {
      return ex
        .select({ kind: jobs.kind, state: jobs.state, n: sql<number>`count(*)::int` })
        .from(jobs)
        .groupBy(jobs.kind, jobs.state);
    },
    async countByState(ex: Executor = db) {
      const rows = await ex
        .select({ state: jobs.state, n: sql<number>`count(*)::int` })
        .from(jobs)
        .groupBy(jobs.state);
      return Object.fromEntries(rows.map((r) => [r.state, r.n]));
    },
  };
}
export type JobsRepository = ReturnType<typeof createJobsRepository>;
