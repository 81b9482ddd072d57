import { and, asc, desc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import {
  PAGE_SIZE,
  type Alert,
  type AlertListQuery,
  type DeliveryLogEntry,
  type ListResult,
} from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import {
  alertCursor,
  alertDeliveries,
  alertDeliveryLog,
  alertNotifications,
  alerts,
  domains,
} from '../../db/schema/index.ts';

export type AlertRow = typeof alerts.$inferSelect;
export type NotificationRow = typeof alertNotifications.$inferSelect;
export type DeliveryRow = typeof alertDeliveries.$inferSelect;
export type ProblemWrite = Pick<
  typeof alerts.$inferInsert,
  | 'key'
  | 'event'
  | 'severity'
  | 'title'
  | 'detail'
  | 'subjectKind'
  | 'subjectId'
  | 'subjectName'
  | 'domainId'
  | 'since'
  | 'daysLeft'
>;

const rowsOf = <T>(res: unknown) => (res as { rows: T[] }).rows;
/** Bounds of one evaluation: the problems and messages it reads at most (the rest waits for the next run). */
export const EVALUATE_LIMIT = 20_000;

const toAlert = (a: AlertRow, deliveries: number): Alert => ({
  _id: a.id,
  alertNo: a.alertNo,
  key: a.key,
  event: a.event as Alert['event'],
  severity: a.severity,
  state: a.state,
  title: a.title,
  detail: a.detail,
  subjectKind: a.subjectKind,
  subjectId: a.subjectId,
  subjectName: a.subjectName,
  openedAt: a.openedAt.toISOString(),
  resolvedAt: a.resolvedAt?.toISOString() ?? null,
  deliveries,
});

export function createAlertsRepository(db: Db) {
  return {
    /** Opens the problem, or refreshes the open one of the same key; `opened` says which. */
    async raise(p: ProblemWrite, ex: Executor = db): Promise<{ id: string; opened: boolean }> {
      const [r] = rowsOf<{ id: string; opened: boolean }>(
        await ex.execute(sql`insert into alerts (key, event, severity, state, title, detail, subject_kind, subject_id,
            subject_name, domain_id, since, days_left)
          values (${p.key}, ${p.event}, ${p.severity}, 'open', ${p.title}, ${p.detail ?? null}, ${p.subjectKind},
            ${p.subjectId ?? null}, ${p.subjectName ?? null}, ${p.domainId ?? null}, ${p.since ?? new Date()},
            ${p.daysLeft ?? null})
          on conflict (key) where state = 'open' do update set severity = excluded.severity, title = excluded.title,
            detail = excluded.detail, subject_name = excluded.subject_name, days_left = excluded.days_left
          returning id, (xmax = 0) as opened`),
      );
      return r!;
    },
    /** A one-off (a failed job, a finished launch): recorded once per key as an event, never resolved. */
    async event(p: ProblemWrite, ex: Executor = db): Promise<string | null> {
      const [r] = rowsOf<{ id: string }>(
        await ex.execute(sql`insert into alerts (key, event, severity, state, title, detail, subject_kind, subject_id,
            subject_name, domain_id, since)
          select ${p.key}, ${p.event}, ${p.severity}, 'event', ${p.title}, ${p.detail ?? null}, ${p.subjectKind},
            ${p.subjectId ?? null}, ${p.subjectName ?? null}, ${p.domainId ?? null}, ${p.since ?? new Date()}
          where not exists (select 1 from alerts where key = ${p.key})
          returning id`),
      );
      return r?.id ?? null;
    },
    async resolve(key: string, at: Date, ex: Executor = db) {
      return ex
        .update(alerts)
        .set({ state: 'resolved', resolvedAt: at })
        .where(and(eq(alerts.key, key), eq(alerts.state, 'open')))
        .returning({ id: alerts.id });
    },
    /** Open problems whose key starts with one of these prefixes (a source's family). */
    async openKeys(prefixes: string[], ex: Executor = db): Promise<string[]> {
      if (!prefixes.length) return [];
      const rows = await ex
        .select({ key: alerts.key })
        .from(alerts)
        .where(
          and(
            eq(alerts.state, 'open'),
            sql`(${sql.join(
              prefixes.map((p) => sql`${alerts.key} like ${`${p}%`}`),
              sql` or `,
            )})`,
          ),
        )
        .limit(EVALUATE_LIMIT * 4);
      return rows.map((r) => r.key);
    },
    /** What rules may still owe a message about: open problems and the last day's events, with each domain's brand. */
    async matchable(since: Date, ex: Executor = db) {
      return ex
        .select({ a: alerts, brandId: domains.brandId })
        .from(alerts)
        .leftJoin(domains, eq(domains.id, alerts.domainId))
        .where(sql`${alerts.state} = 'open' or (${alerts.state} = 'event' and ${alerts.openedAt} >= ${since})`)
        .orderBy(asc(alerts.openedAt))
        .limit(EVALUATE_LIMIT);
    },
    /** The (alert, rule, channel) triples already told about the opening, with the latest open/reminder time. */
    async told(alertIds: string[], ex: Executor = db) {
      if (!alertIds.length) return [];
      return rowsOf<{ alert_id: string; rule_id: string; channel_id: string; last: Date | string; sent: boolean }>(
        await ex.execute(sql`select alert_id, rule_id, channel_id, max(created_at) as last,
            bool_or(status in ('sent', 'queued')) as sent
          from alert_notifications
          where kind in ('open', 'reminder') and alert_id in (${sql.join(
            alertIds.map((id) => sql`${id}::uuid`),
            sql`, `,
          )})
          group by alert_id, rule_id, channel_id`),
      );
    },
    async notify(
      rows: {
        alertId: string;
        ruleId: string;
        channelId: string;
        kind: 'open' | 'reminder' | 'resolved';
        dueAt: Date;
      }[],
      ex: Executor = db,
    ) {
      if (!rows.length) return 0;
      const r = await ex
        .insert(alertNotifications)
        .values(rows)
        .onConflictDoNothing()
        .returning({ id: alertNotifications.id });
      return r.length;
    },
    /** Resolved problems whose opening went (or is going) out and whose resolution is not yet owed. */
    async resolvedToTell(since: Date, ex: Executor = db) {
      return rowsOf<{ id: number; alert_id: string; rule_id: string; channel_id: string; status: string }>(
        await ex.execute(sql`select n.id, n.alert_id, n.rule_id, n.channel_id, n.status
          from alert_notifications n join alerts a on a.id = n.alert_id
          where a.state = 'resolved' and a.resolved_at >= ${since} and n.kind = 'open'
            and n.status in ('pending', 'queued', 'sent')
            and not exists (select 1 from alert_notifications r where r.alert_id = n.alert_id
              and r.rule_id = n.rule_id and r.channel_id = n.channel_id and r.kind = 'resolved')
          limit ${EVALUATE_LIMIT}`),
      );
    },
    /** A problem gone before its message left: neither its opening nor a reminder is sent. */
    async skipPending(alertId: string, ruleId: string, channelId: string, ex: Executor = db) {
      await ex
        .update(alertNotifications)
        .set({ status: 'skipped' })
        .where(
          and(
            eq(alertNotifications.alertId, alertId),
            eq(alertNotifications.ruleId, ruleId),
            eq(alertNotifications.channelId, channelId),
            eq(alertNotifications.status, 'pending'),
          ),
        );
    },
    /** (rule, channel) pairs with messages due. */
    async dueGroups(now: Date, ex: Executor = db) {
      return ex
        .selectDistinct({ ruleId: alertNotifications.ruleId, channelId: alertNotifications.channelId })
        .from(alertNotifications)
        .where(and(eq(alertNotifications.status, 'pending'), lte(alertNotifications.dueAt, now)))
        .limit(1000);
    },
    /** Locks a group's due messages (another process skips them), with their alerts. */
    async claimGroup(ruleId: string, channelId: string, now: Date, ex: Executor) {
      const ids = rowsOf<{ id: number }>(
        await ex.execute(sql`select id from alert_notifications
          where rule_id = ${ruleId} and channel_id = ${channelId} and status = 'pending' and due_at <= ${now}
          order by id limit ${EVALUATE_LIMIT} for update skip locked`),
      ).map((r) => Number(r.id));
      if (!ids.length) return [];
      return ex
        .select({ n: alertNotifications, a: alerts })
        .from(alertNotifications)
        .innerJoin(alerts, eq(alerts.id, alertNotifications.alertId))
        .where(inArray(alertNotifications.id, ids))
        .orderBy(asc(alertNotifications.id));
    },
    async insertDelivery(v: typeof alertDeliveries.$inferInsert, notificationIds: number[], ex: Executor) {
      const [d] = await ex.insert(alertDeliveries).values(v).returning();
      if (!d) throw new Error('The delivery was not recorded');
      await ex
        .update(alertNotifications)
        .set({ status: 'queued', deliveryId: d.id })
        .where(inArray(alertNotifications.id, notificationIds));
      return d;
    },
    async findDelivery(id: string, ex: Executor = db): Promise<DeliveryRow | undefined> {
      const [d] = await ex.select().from(alertDeliveries).where(eq(alertDeliveries.id, id));
      return d;
    },
    setDeliveryJob: (id: string, jobId: string, ex: Executor = db) =>
      ex.update(alertDeliveries).set({ jobId }).where(eq(alertDeliveries.id, id)),
    /** Queued deliveries whose job was never queued (the process died in between): queued again by the next run. */
    orphans: (before: Date, ex: Executor = db) =>
      ex
        .select({ id: alertDeliveries.id })
        .from(alertDeliveries)
        .where(
          and(
            eq(alertDeliveries.status, 'queued'),
            sql`${alertDeliveries.jobId} is null`,
            lte(alertDeliveries.createdAt, before),
          ),
        )
        .limit(100),
    /** Before the provider is called: the attempt is on record, so a crash after it is seen as "maybe sent". */
    markSending: (id: string, ex: Executor = db) =>
      ex
        .update(alertDeliveries)
        .set({ status: 'sending', attempts: sql`${alertDeliveries.attempts} + 1` })
        .where(eq(alertDeliveries.id, id))
        .returning(),
    async finish(id: string, status: 'sent' | 'failed', answer: string, at: Date, ex: Executor) {
      await ex
        .update(alertDeliveries)
        .set({ status, answer, ...(status === 'sent' ? { sentAt: at } : {}) })
        .where(eq(alertDeliveries.id, id));
      await ex.update(alertNotifications).set({ status }).where(eq(alertNotifications.deliveryId, id));
    },
    setAnswer: (id: string, answer: string, ex: Executor = db) =>
      ex.update(alertDeliveries).set({ answer }).where(eq(alertDeliveries.id, id)),

    async log(
      e: {
        deliveryId: string | null;
        channelId: string | null;
        channelName: string;
        channelKind: 'email' | 'webhook' | 'telegram';
        event: string;
        outcome: 'sent' | 'failed' | 'retrying' | 'held' | 'test';
        answer: string | null;
      },
      ex: Executor = db,
    ) {
      await ex.insert(alertDeliveryLog).values({ ...e, answer: e.answer?.slice(0, 1000) ?? null });
    },
    async logPage(q: { page: number; alertId?: string }, ex: Executor = db): Promise<ListResult<DeliveryLogEntry>> {
      const where = q.alertId
        ? sql`${alertDeliveryLog.deliveryId} in (select delivery_id from alert_notifications where alert_id = ${q.alertId} and delivery_id is not null)`
        : sql`true`;
      const [{ n } = { n: 0 }] = await ex
        .select({ n: sql<number>`count(*)::int` })
        .from(alertDeliveryLog)
        .where(where);
      const rows = await ex
        .select()
        .from(alertDeliveryLog)
        .where(where)
        .orderBy(desc(alertDeliveryLog.id))
        .limit(PAGE_SIZE)
        .offset((q.page - 1) * PAGE_SIZE);
      return {
        itemsCount: n,
        items: rows.map((r) => ({
          id: Number(r.id),
          at: r.at.toISOString(),
          channelId: r.channelId,
          channelName: r.channelName,
          channelKind: r.channelKind,
          event: r.event,
          outcome: r.outcome,
          answer: r.answer,
          deliveryId: r.deliveryId,
        })),
      };
    },
    async list(q: AlertListQuery, ex: Executor = db): Promise<ListResult<Alert>> {
      // Open first, then the last week's resolved problems and events, newest first.
      const week = new Date(Date.now() - 7 * 24 * 3600_000);
      const where =
        q.state === 'open'
          ? eq(alerts.state, 'open')
          : q.state === 'recent'
            ? and(sql`${alerts.state} <> 'open'`, gte(alerts.openedAt, week))
            : sql`${alerts.state} = 'open' or ${alerts.openedAt} >= ${week}`;
      const [{ n } = { n: 0 }] = await ex
        .select({ n: sql<number>`count(*)::int` })
        .from(alerts)
        .where(where);
      const rows = await ex
        .select({
          a: alerts,
          deliveries: sql<number>`(select count(*)::int from alert_notifications n where n.alert_id = "alerts"."id" and n.status = 'sent')`,
        })
        .from(alerts)
        .where(where)
        .orderBy(sql`${alerts.state} = 'open' desc`, desc(alerts.openedAt), desc(alerts.alertNo))
        .limit(PAGE_SIZE)
        .offset((q.page - 1) * PAGE_SIZE);
      return { itemsCount: n, items: rows.map((r) => toAlert(r.a, Number(r.deliveries))) };
    },
    async findAlert(id: string, ex: Executor = db) {
      const [a] = await ex.select().from(alerts).where(eq(alerts.id, id));
      return a;
    },
    async jobsCursor(ex: Executor = db): Promise<Date | null> {
      const [c] = await ex.select().from(alertCursor).where(eq(alertCursor.id, 1));
      return c?.jobsAfter ?? null;
    },
    async setJobsCursor(at: Date, ex: Executor = db) {
      await ex
        .insert(alertCursor)
        .values({ id: 1, jobsAfter: at })
        .onConflictDoUpdate({ target: alertCursor.id, set: { jobsAfter: at } });
    },
    /** Pending messages held past now (quiet hours), for the screen. */
    async held(now: Date, ex: Executor = db) {
      const [{ n } = { n: 0 }] = await ex
        .select({ n: sql<number>`count(*)::int` })
        .from(alertNotifications)
        .where(and(eq(alertNotifications.status, 'pending'), sql`${alertNotifications.dueAt} > ${now}`));
      return n;
    },
  };
}
export type AlertsRepository = ReturnType<typeof createAlertsRepository>;
