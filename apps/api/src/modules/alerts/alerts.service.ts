import { randomUUID } from 'node:crypto';
import {
  ALERT_SEVERITY_RANK,
  type AlertEvent,
  type AlertListQuery,
  type AlertSeverity,
  type DemoInboxMail,
  type DomainFilter,
} from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import { NotFoundError } from '../../http/errors.ts';
import { ChannelSendError } from '../../integrations/notify/errors.ts';
import type { AlertRulesRepository, RuleRow } from '../alert-rules/alert-rules.repository.ts';
import type { NotificationChannelsService } from '../notification-channels/notification-channels.service.ts';
import { compose, releaseTime } from './alerts.compose.ts';
import type { AlertRow, AlertsRepository, ProblemWrite } from './alerts.repository.ts';
import { STATE_FAMILIES, type AlertSources } from './alerts.sources.ts';

/** A problem another module reports (launches, for instance): `key` names it, e.g. `launch:<id>`. */
export type ProblemInput = {
  key: string;
  event: AlertEvent;
  severity: AlertSeverity;
  title: string;
  detail?: string | null;
  subject: { kind: 'domain' | 'server' | 'proxy' | 'job' | 'launch'; id?: string | null; name?: string | null };
  domainId?: string | null;
};

/** How a delivery attempt ended, for the job: done, or try again later, or give up. */
export type DeliveryOutcome = { status: 'sent' | 'failed' | 'skipped'; answer: string | null };

const DAY = 24 * 3600_000;

export function createAlertsService(deps: {
  database: Database;
  repo: AlertsRepository;
  rules: AlertRulesRepository;
  channels: NotificationChannelsService;
  sources: AlertSources;
  /** Domain ids of a saved filter of the domains list (bounded). */
  idsForFilter: (filter: Partial<DomainFilter>) => Promise<string[]>;
  /** Queues the delivery job of a delivery; answers the job's id. */
  enqueueDelivery: (deliveryId: string) => Promise<string>;
  groupSeconds: number;
  consoleUrl?: string;
  /** Retries of a delivery after its first attempt (the job's policy), to know the last attempt. */
  deliveryRetries: number;
}) {
  const { database, repo } = deps;
  let demoInbox: (() => DemoInboxMail[]) | null = null;

  const toWrite = (p: ProblemInput, since: Date): ProblemWrite => ({
    key: p.key.slice(0, 300),
    event: p.event,
    severity: p.severity,
    title: p.title.slice(0, 500),
    detail: p.detail?.slice(0, 2000) ?? null,
    subjectKind: p.subject.kind,
    subjectId: p.subject.id ?? null,
    subjectName: p.subject.name?.slice(0, 300) ?? null,
    domainId: p.domainId ?? null,
    since,
  });

  /** Does the rule want to hear about this alert now (event, severity, thresholds, scope)? */
  function matches(rule: RuleRow, a: AlertRow, brandId: string | null, filterIds: Set<string> | undefined, now: Date) {
    if (!rule.events.includes(a.event)) return false;
    if (ALERT_SEVERITY_RANK[a.severity] < ALERT_SEVERITY_RANK[rule.minSeverity]) return false;
    if (a.event === 'health_failing' && now.getTime() - a.since.getTime() < rule.healthMinutes * 60_000) return false;
    if (a.event === 'domain_expiring' && (a.daysLeft ?? Infinity) > rule.expiryDays) return false;
    // The scope chooses domains; alerts about a server, a proxy or a job are not about one domain and pass.
    if (a.subjectKind === 'domain' || a.domainId) {
      if (rule.scope === 'brand' && (!brandId || brandId !== rule.brandId)) return false;
      if (rule.scope === 'filter' && (!a.domainId || !filterIds?.has(a.domainId))) return false;
    }
    return true;
  }

  const service = {
    // ---- what other modules call ----

    /** Opens a problem (or keeps it open): one alert per key however often it is raised. */
    async raise(p: ProblemInput, at = new Date()) {
      return repo.raise(toWrite(p, at));
    },
    /** The problem is over: its resolution goes out once, to whoever was told of it. */
    async resolve(key: string, at = new Date()) {
      return (await repo.resolve(key, at)).length > 0;
    },
    /** A one-off event (a launch finished, a job failed): told once, never resolved. */
    async event(p: ProblemInput, at = new Date()) {
      return repo.event(toWrite(p, at));
    },

    /**
     * One evaluation (the periodic job): bring problems in step with their sources, decide who is owed which
     * message (openings, reminders, resolutions; quiet hours hold them), then group what is due into deliveries.
     */
    async evaluate(now = new Date()) {
      const rules = await deps.rules.enabled();
      const expiryDays = Math.max(
        30,
        ...rules.filter((r) => r.events.includes('domain_expiring')).map((r) => r.expiryDays),
      );
      // 1. Sources → problems.
      const { problems: current, partial } = await deps.sources.current({ now, expiryDays });
      const openBefore = await repo.openKeys([...STATE_FAMILIES]);
      const wasOpen = new Set(openBefore);
      const live = new Set<string>();
      let opened = 0;
      for (const p of current) {
        live.add(p.key);
        // An open problem is written again only when its words change with time (days left).
        if (wasOpen.has(p.key) && p.event !== 'domain_expiring') continue;
        if ((await repo.raise(p)).opened) opened++;
      }
      let resolved = 0;
      for (const key of openBefore) {
        // A source read only in part (past its bound) resolves nothing: the rest was not looked at.
        if (partial.some((f) => key.startsWith(f))) continue;
        if (!live.has(key) && (await repo.resolve(key, now)).length) resolved++;
      }
      // A minute of overlap: a job may commit its end a moment after the time it wrote; its key keeps it once.
      const cursor = (await repo.jobsCursor()) ?? new Date(now.getTime() - 10 * 60_000);
      const jobs = await deps.sources.finishedBadly(new Date(cursor.getTime() - 60_000), now);
      for (const j of jobs) {
        const { finishedAt: _f, ...p } = j;
        await repo.event(p);
      }
      await repo.setJobsCursor(
        new Date(
          Math.max(cursor.getTime(), ...jobs.map((j) => j.finishedAt.getTime()), jobs.length ? 0 : now.getTime()),
        ),
      );

      // 2. Who is owed an opening or a reminder.
      const candidates = await repo.matchable(new Date(now.getTime() - DAY));
      const told = await repo.told(candidates.map((c) => c.a.id));
      const toldOf = new Map(told.map((t) => [`${t.alert_id}|${t.rule_id}|${t.channel_id}`, t]));
      const filterIds = new Map<string, Set<string>>();
      for (const r of rules) {
        if (r.scope === 'filter' && r.filter)
          filterIds.set(r.id, new Set(await deps.idsForFilter(r.filter as Partial<DomainFilter>)));
      }
      const groupDue = new Date(now.getTime() + deps.groupSeconds * 1000);
      const rows: Parameters<AlertsRepository['notify']>[0] = [];
      for (const { a, brandId } of candidates) {
        for (const rule of rules) {
          if (!matches(rule, a, brandId, filterIds.get(rule.id), now)) continue;
          for (const channelId of rule.channelIds) {
            const t = toldOf.get(`${a.id}|${rule.id}|${channelId}`);
            if (!t) {
              rows.push({
                alertId: a.id,
                ruleId: rule.id,
                channelId,
                kind: 'open',
                dueAt: releaseTime(rule, groupDue),
              });
            } else if (
              a.state === 'open' &&
              rule.reminderMinutes &&
              t.sent &&
              now.getTime() - new Date(t.last).getTime() >= rule.reminderMinutes * 60_000
            ) {
              rows.push({ alertId: a.id, ruleId: rule.id, channelId, kind: 'reminder', dueAt: releaseTime(rule, now) });
            }
          }
        }
      }
      const owed = await repo.notify(rows);

      // 3. Resolutions, once, to those told of the opening; an opening not yet sent is dropped instead.
      const ruleOf = new Map(rules.map((r) => [r.id, r]));
      const resolutions: typeof rows = [];
      for (const r of await repo.resolvedToTell(new Date(now.getTime() - 7 * DAY))) {
        if (r.status === 'pending') {
          await repo.skipPending(r.alert_id, r.rule_id, r.channel_id);
          continue;
        }
        const rule = ruleOf.get(r.rule_id);
        resolutions.push({
          alertId: r.alert_id,
          ruleId: r.rule_id,
          channelId: r.channel_id,
          kind: 'resolved',
          dueAt: rule ? releaseTime(rule, groupDue) : groupDue,
        });
      }
      const resolving = await repo.notify(resolutions);

      // 4. What is due goes out.
      const deliveries = await service.dispatch(now);
      return { opened, resolved, events: jobs.length, owed: owed + resolving, deliveries };
    },

    /** Groups each (rule, channel)'s due messages into one delivery and queues its job. */
    async dispatch(now = new Date()) {
      let made = 0;
      for (const g of await repo.dueGroups(now)) {
        const d = await database.db.transaction(async (tx) => {
          const items = await repo.claimGroup(g.ruleId, g.channelId, now, tx);
          if (!items.length) return null;
          const rule = await deps.rules.findRow(g.ruleId, tx);
          const id = randomUUID();
          const m = compose(items, {
            deliveryId: id,
            rule: { id: g.ruleId, name: rule?.name ?? 'deleted rule' },
            now,
            consoleUrl: deps.consoleUrl,
          });
          return repo.insertDelivery(
            {
              id,
              ruleId: g.ruleId,
              channelId: g.channelId,
              event: m.event,
              subject: m.subject,
              text: m.text,
              html: m.html,
              payload: m.payload as unknown as Record<string, unknown>,
            },
            items.map((i) => i.n.id),
            tx,
          );
        });
        if (!d) continue;
        made++;
        await deps.repo.setDeliveryJob(d.id, await deps.enqueueDelivery(d.id));
      }
      // A delivery recorded by a process that died before queueing its job.
      for (const o of await repo.orphans(new Date(now.getTime() - 60_000))) {
        await deps.repo.setDeliveryJob(o.id, await deps.enqueueDelivery(o.id));
      }
      return made;
    },

    /**
     * One attempt of a delivery (the job's step). The attempt is recorded before the provider is called, and
     * the answer right after: a delivery already sent is never sent again; one found "sending" was interrupted
     * between the two and is sent again with the same id (decision 046). Temporary failures throw for the job's
     * retry with back-off; permanent ones, and the last attempt, end it as failed.
     */
    async deliver(deliveryId: string, attempt: number, signal?: AbortSignal): Promise<DeliveryOutcome> {
      const d = await repo.findDelivery(deliveryId);
      if (!d) return { status: 'skipped', answer: 'The delivery no longer exists' };
      if (d.status === 'sent' || d.status === 'failed') return { status: 'skipped', answer: d.answer };
      const c = await deps.channels.findRow(d.channelId);
      const logBase = { deliveryId, channelId: d.channelId, event: d.event };
      if (!c) return { status: 'skipped', answer: 'The channel was deleted' };
      const finish = async (status: 'sent' | 'failed', answer: string) => {
        await database.db.transaction(async (tx) => {
          await repo.finish(deliveryId, status, answer, new Date(), tx);
          await repo.log({ ...logBase, channelName: c.name, channelKind: c.kind, outcome: status, answer }, tx);
        });
        return { status, answer };
      };
      if (!c.enabled) return finish('failed', `${deps.channels.providerOf(c)}: the channel is disabled`);
      await repo.markSending(deliveryId);
      try {
        const answer = await deps.channels.send(
          c,
          { deliveryId, subject: d.subject, text: d.text, html: d.html, payload: d.payload },
          signal,
        );
        return await finish('sent', answer);
      } catch (err) {
        if (!(err instanceof ChannelSendError)) throw err;
        if (!err.temporary || attempt > deps.deliveryRetries) return finish('failed', err.message);
        await repo.setAnswer(deliveryId, err.message);
        await repo.log({
          ...logBase,
          channelName: c.name,
          channelKind: c.kind,
          outcome: 'retrying',
          answer: err.message,
        });
        throw err;
      }
    },

    list: (q: AlertListQuery) => repo.list(q),
    async get(id: string) {
      const a = await repo.findAlert(id);
      if (!a) throw new NotFoundError('Alert not found');
      return a;
    },
    deliveryLog: (q: { page: number; alertId?: string }) => repo.logPage(q),
    logDelivery: repo.log,
    held: (now = new Date()) => repo.held(now),

    /** Demo mode: the local SMTP catcher's mails (null outside the demo). */
    setDemoInbox(fn: () => DemoInboxMail[]) {
      demoInbox = fn;
    },
    demoInbox: () => demoInbox?.() ?? null,
  };
  return service;
}
export type AlertsService = ReturnType<typeof createAlertsService>;
