import {
  auditSentence,
  ADMIN_RULE,
  EXPIRING_WITHIN_DAYS,
  JOB_AREAS,
  JOB_KIND_LABELS,
  jobName,
  jobOwner,
  hasRule,
  type Dashboard,
  type HealthSummary,
  type JobProgress,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import type { DashboardRepository } from './dashboard.repository.ts';

const isoDate = (d: Date) => d.toISOString().slice(0, 10);

/** 0..100 from a job's progress, or null when it has no total yet. */
export function jobPercent(p: JobProgress | null | undefined): number | null {
  if (!p) return null;
  if (typeof p.bytesTotal === 'number' && p.bytesTotal > 0 && typeof p.bytesDone === 'number')
    return Math.min(100, Math.max(0, Math.round((p.bytesDone / p.bytesTotal) * 100)));
  if (typeof p.total === 'number' && p.total > 0 && typeof p.done === 'number')
    return Math.min(100, Math.max(0, Math.round((p.done / p.total) * 100)));
  return null;
}

export function createDashboardService(deps: {
  repo: DashboardRepository;
  /** The health counts, read as GET /api/health/summary reads them (issue 47: one request for the dashboard). */
  healthSummary: () => Promise<HealthSummary>;
  now?: () => Date;
}) {
  const { repo } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /** Every figure the caller's rules open, in one answer; the statements run side by side. */
    async get(actor: Actor): Promise<Dashboard> {
      const t = now();
      const today = isoDate(t);
      const until = isoDate(
        new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() + EXPIRING_WITHIN_DAYS)),
      );
      const may = (rule: Parameters<typeof hasRule>[1]) => hasRule(actor.rules, rule);
      const areas = actor.rules.includes(ADMIN_RULE) ? null : JOB_AREAS.filter((a) => actor.rules.includes(a));

      const day = (n: number) => isoDate(new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() + n)));
      // Whole days only: the last 7 to yesterday against the 7 before (today is still being counted).
      const week = { from: day(-7), to: day(-1) };
      const previous = { from: day(-14), to: day(-8) };
      const [domainCounts, expiring, serverCounts, proxyCounts, cloudTotal, changes, jobs, traffic, health] =
        await Promise.all([
          may('cnv:domains') ? repo.domainCounts(today, until) : null,
          may('cnv:domains') ? repo.expiringDomains(today, until) : null,
          may('cnv:servers') ? repo.serverCounts() : null,
          may('cnv:proxies') ? repo.proxyCounts() : null,
          may('cnv:clouds') ? repo.cloudCount() : null,
          actor.rules.includes(ADMIN_RULE) ? repo.latestChanges() : null,
          areas && areas.length === 0 ? { rows: [], total: 0 } : repo.activeJobs(areas),
          may('cnv:domains')
            ? Promise.all([repo.trafficDays(day(-14)), repo.trafficFalls(week, previous), repo.trafficDomainsRead()])
            : null,
          may('cnv:domains') ? deps.healthSummary() : null,
        ]);
      const sumOf = (days: { date: string; requests: number }[], r: { from: string; to: string }) =>
        days.filter((x) => x.date >= r.from && x.date <= r.to).reduce((n, x) => n + x.requests, 0);

      return {
        today,
        expiringWithinDays: EXPIRING_WITHIN_DAYS,
        domains: domainCounts && expiring ? { ...domainCounts, expiring } : null,
        servers: serverCounts,
        proxies: proxyCounts,
        clouds: cloudTotal === null ? null : { total: cloudTotal },
        health,
        traffic: traffic
          ? {
              days: traffic[0].filter((x) => x.date >= day(-13)),
              week: { since: week.from, until: week.to, requests: sumOf(traffic[0], week) },
              previousWeek: { since: previous.from, until: previous.to, requests: sumOf(traffic[0], previous) },
              domainsRead: traffic[2],
              falls: traffic[1].map((f) => ({
                ...f,
                change: Math.round(((f.requests - f.previous) / f.previous) * 100),
              })),
            }
          : null,
        latestChanges: changes
          ? changes.map((c) => ({
              _id: c.id,
              at: c.at.toISOString(),
              username: c.username,
              action: c.action,
              entity: c.entity,
              entityId: c.entityId,
              sentence: auditSentence(c),
            }))
          : null,
        runningJobs: {
          total: jobs.total,
          items: jobs.rows.map((j) => ({
            _id: j.id,
            jobNo: j.jobNo,
            kindLabel: JOB_KIND_LABELS[j.kind] ?? j.kind,
            name: jobName(j),
            path:
              jobOwner(j.kind, j.payload)?.path ?? (j.domainId ? `/jobs?domainId=${j.domainId}` : '/jobs?state=active'),
            state: j.state,
            domainId: j.domainId,
            domainName: j.domainName,
            percent: jobPercent(j.progress as JobProgress | null),
          })),
        },
      };
    },
  };
}
export type DashboardService = ReturnType<typeof createDashboardService>;
