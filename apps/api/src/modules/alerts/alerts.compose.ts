import { ALERT_EVENT_LABELS, ALERT_SEVERITY_LABELS, type AlertEvent, type WebhookPayload } from '@fleetdesk/contract';
import { escapeHtml } from '../notification-channels/notification-channels.service.ts';
import { cutText } from '../../lib/text-cut.ts';
import type { AlertRow, NotificationRow } from './alerts.repository.ts';

/** The first this many problems are listed by name in a summary; the rest are counted. */
export const SUMMARY_LIST = 20;

/** "2 h 14 min", "45 min", "3 d 2 h": how long a problem lasted. */
export function humanDuration(ms: number): string {
  const min = Math.max(0, Math.round(ms / 60_000));
  if (min < 1) return 'less than a minute';
  const d = Math.floor(min / 1440);
  const h = Math.floor((min % 1440) / 60);
  const m = min % 60;
  if (d) return h ? `${d} d ${h} h` : `${d} d`;
  if (h) return m ? `${h} h ${m} min` : `${h} h`;
  return `${m} min`;
}

/** Minutes past midnight in the time zone. */
function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .formatToParts(at)
    .reduce<Record<string, string>>((o, p) => ({ ...o, [p.type]: p.value }), {});
  return Number(parts.hour) * 60 + Number(parts.minute);
}
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * When a message due at `at` may leave under the rule's quiet hours: `at` itself outside them, else the end of
 * the quiet period (messages are held, never dropped). Minute precision; across a DST change the end may be an
 * hour off, which holds a message an hour more or less.
 */
export function releaseTime(
  rule: { quietStart: string | null; quietEnd: string | null; timeZone: string | null },
  at: Date,
): Date {
  if (!rule.quietStart || !rule.quietEnd || !rule.timeZone) return at;
  const now = localMinutes(at, rule.timeZone);
  const start = minutesOf(rule.quietStart);
  const end = minutesOf(rule.quietEnd);
  const quiet = start < end ? now >= start && now < end : now >= start || now < end;
  if (!quiet) return at;
  const wait = (end - now + 1440) % 1440;
  const release = new Date(at.getTime() + wait * 60_000);
  release.setUTCSeconds(0, 0);
  return release;
}

export type Composed = { event: string; subject: string; text: string; html: string; payload: WebhookPayload };

type Item = { n: NotificationRow; a: AlertRow };

const linkOf = (base: string | undefined, a: AlertRow) => {
  if (!base) return null;
  const root = base.replace(/\/+$/, '');
  if (a.subjectKind === 'domain' && a.subjectId) return `${root}/domains/${a.subjectId}`;
  if (a.subjectKind === 'server' && a.subjectId) return `${root}/servers/${a.subjectId}`;
  if (a.subjectKind === 'proxy' && a.subjectId) return `${root}/proxies/${a.subjectId}`;
  if (a.subjectKind === 'job' && a.subjectId) return `${root}/jobs`;
  return `${root}/alerts`;
};

function line(i: Item, now: Date): string {
  const sev = ALERT_SEVERITY_LABELS[i.a.severity].toUpperCase();
  if (i.n.kind === 'resolved') {
    const took = humanDuration((i.a.resolvedAt ?? now).getTime() - i.a.since.getTime());
    return `RESOLVED: ${i.a.title}, resolved after ${took}`;
  }
  if (i.n.kind === 'reminder')
    return `STILL ${sev}: ${i.a.title}, for ${humanDuration(now.getTime() - i.a.since.getTime())}`;
  return `${sev}: ${i.a.title}`;
}

/** One message for a group of due notifications of one rule and channel: one problem, or a summary of many. */
export function compose(
  items: Item[],
  o: { deliveryId: string; rule: { id: string; name: string }; now: Date; consoleUrl?: string },
): Composed {
  const opened = items.filter((i) => i.n.kind === 'open');
  const reminders = items.filter((i) => i.n.kind === 'reminder');
  const resolved = items.filter((i) => i.n.kind === 'resolved');
  const alertsJson: WebhookPayload['alerts'] = items.slice(0, 50).map((i) => ({
    id: i.a.id,
    key: i.a.key,
    event: i.a.event as AlertEvent,
    severity: i.a.severity,
    state: i.a.state,
    title: i.a.title,
    subject: { kind: i.a.subjectKind, id: i.a.subjectId, name: i.a.subjectName },
    openedAt: i.a.openedAt.toISOString(),
    resolvedAt: i.a.resolvedAt?.toISOString() ?? null,
  }));
  let subject: string;
  let event: string;
  let type: WebhookPayload['type'];
  let lines: string[];
  const only = items.length === 1 ? items[0] : undefined;
  if (only) {
    const i = only;
    const l = line(i, o.now);
    subject = `[Fleetdesk] ${l}`;
    event = `${ALERT_EVENT_LABELS[i.a.event as AlertEvent] ?? i.a.event}: ${l}`;
    type = i.n.kind === 'resolved' ? 'alert.resolved' : i.n.kind === 'reminder' ? 'alert.reminder' : 'alert.open';
    const link = linkOf(o.consoleUrl, i.a);
    lines = [l, ...(i.a.detail ? [i.a.detail] : []), ...(link ? [link] : [])];
  } else {
    const parts = [
      opened.length && `${opened.length} new`,
      reminders.length && `${reminders.length} still open`,
      resolved.length && `${resolved.length} resolved`,
    ].filter(Boolean);
    const byEvent = new Map<string, number>();
    for (const i of items) {
      const k = ALERT_EVENT_LABELS[i.a.event as AlertEvent] ?? i.a.event;
      byEvent.set(k, (byEvent.get(k) ?? 0) + 1);
    }
    subject = `[Fleetdesk] ${items.length} alerts: ${parts.join(', ')}`;
    event = `Summary of ${items.length} alerts: ${parts.join(', ')}`;
    type = 'alert.summary';
    lines = [
      `${items.length} alerts for rule "${o.rule.name}": ${parts.join(', ')}.`,
      [...byEvent].map(([k, n]) => `${k}: ${n}`).join('; '),
      '',
      ...items.slice(0, SUMMARY_LIST).map((i) => `- ${line(i, o.now)}`),
      ...(items.length > SUMMARY_LIST ? [`… and ${items.length - SUMMARY_LIST} more`] : []),
      ...(o.consoleUrl ? ['', `${o.consoleUrl.replace(/\/+$/, '')}/alerts`] : []),
    ];
  }
  const text = lines.join('\n');
  const html =
    `<div style="font-family:sans-serif">` +
    lines.map((l) => (l ? `<p style="margin:0 0 6px">${escapeHtml(l)}</p>` : '')).join('') +
    `<p style="color:#666;font-size:12px">Rule: ${escapeHtml(o.rule.name)}</p></div>`;
  return {
    event: event.slice(0, 500),
    subject: cutText(subject, 250),
    text: cutText(text, 4000),
    html,
    payload: {
      deliveryId: o.deliveryId,
      type,
      sentAt: o.now.toISOString(),
      rule: o.rule,
      summary: lines[0] ?? subject,
      alerts: alertsJson,
      total: items.length,
    },
  };
}
