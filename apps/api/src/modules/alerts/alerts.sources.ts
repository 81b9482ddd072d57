import { sql } from 'drizzle-orm';
import {
  JOB_KIND_LABELS,
  explainProviderReason,
  healthCheckOf,
  jobOwner,
  type AlertSeverity,
} from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { EVALUATE_LIMIT, type ProblemWrite } from './alerts.repository.ts';

const rowsOf = <T>(res: unknown) => (res as { rows: T[] }).rows;

/** Checks whose failure means "not as the console set it" (decision 045's expected values): drift. */
export const DRIFT_CHECKS = ['registrar_ns', 'cf_ssl', 'cf_tls13', 'cf_waf'];

/** Families of problems kept in step with their source: their open alerts resolve when the source is fine. */
export const STATE_FAMILIES = ['health:', 'drift:', 'expiry:', 'server:', 'proxy:'] as const;

const toDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/**
 * Reads what is wrong now from the tables the periodic checks write (health results, servers, proxies, expiry
 * dates) and the jobs that ended badly since the last read. Each read is bounded; what does not fit waits.
 */
export function createAlertSources(db: Db) {
  return {
    async current(o: { now: Date; expiryDays: number }): Promise<{ problems: ProblemWrite[]; partial: string[] }> {
      const out: ProblemWrite[] = [];
      const partial: string[] = [];
      const checks = rowsOf<{
        domain_id: string;
        name: string;
        check_key: string;
        state: string;
        since: Date | string;
        observed: string | null;
        reason: string | null;
      }>(
        await db.execute(sql`select c.domain_id, d.domain_name_unicode as name, c.check_key, c.state, c.since,
            c.observed, c.reason
          from domain_health_checks c join domains d on d.id = c.domain_id
          where c.state = 'failing' or (c.state = 'warning' and c.check_key in (${sql.join(
            DRIFT_CHECKS.map((k) => sql`${k}`),
            sql`, `,
          )}))
          order by c.since limit ${EVALUATE_LIMIT}`),
      );
      if (checks.length >= EVALUATE_LIMIT) partial.push('health:', 'drift:');
      for (const c of checks) {
        const drift = DRIFT_CHECKS.includes(c.check_key);
        const label = healthCheckOf(c.check_key)?.label ?? c.check_key;
        out.push({
          key: `${drift ? 'drift' : 'health'}:${c.domain_id}:${c.check_key}`,
          event: drift ? 'drift' : 'health_failing',
          severity: drift ? 'warning' : 'critical',
          title: drift ? `${label} drifted on ${c.name}` : `${label} failing on ${c.name}`,
          detail: (c.observed ?? c.reason)?.slice(0, 500) ?? null,
          subjectKind: 'domain',
          subjectId: c.domain_id,
          subjectName: c.name,
          domainId: c.domain_id,
          since: toDate(c.since),
        });
      }
      const servers = rowsOf<{ id: string; ip: string; error: string | null; at: Date | string | null }>(
        await db.execute(sql`select id, ip_address as ip, check_error as error, checked_at as at from servers
          where status = 'offline' limit ${EVALUATE_LIMIT}`),
      );
      if (servers.length >= EVALUATE_LIMIT) partial.push('server:');
      for (const s of servers) {
        out.push({
          key: `server:${s.id}`,
          event: 'server_offline',
          severity: 'critical',
          title: `Server ${s.ip} is offline`,
          detail: s.error?.slice(0, 500) ?? null,
          subjectKind: 'server',
          subjectId: s.id,
          subjectName: s.ip,
          domainId: null,
          since: s.at ? toDate(s.at) : o.now,
        });
      }
      const proxies = rowsOf<{
        id: string;
        ip: string | null;
        port: number | null;
        error: string | null;
        at: Date | string | null;
      }>(
        await db.execute(sql`select id, ip_address as ip, http_port as port, check_error as error, checked_at as at
          from proxies where check_status = 'error' limit ${EVALUATE_LIMIT}`),
      );
      if (proxies.length >= EVALUATE_LIMIT) partial.push('proxy:');
      for (const p of proxies) {
        const name = `${p.ip ?? '?'}:${p.port ?? '?'}`;
        out.push({
          key: `proxy:${p.id}`,
          event: 'proxy_failing',
          severity: 'warning',
          title: `Proxy ${name} is failing`,
          detail: p.error?.slice(0, 500) ?? null,
          subjectKind: 'proxy',
          subjectId: p.id,
          subjectName: name,
          domainId: null,
          since: p.at ? toDate(p.at) : o.now,
        });
      }
      if (o.expiryDays > 0) {
        const expiring = rowsOf<{ id: string; name: string; days: number; date: string }>(
          await db.execute(sql`select id, domain_name_unicode as name, domain_registrator_expiration_date::text as date,
              (domain_registrator_expiration_date - (${o.now.toISOString()}::timestamptz at time zone 'UTC')::date)::int as days
            from domains
            where status = 'active' and domain_registrator_expiration_date is not null
              and domain_registrator_expiration_date <= (${o.now.toISOString()}::timestamptz at time zone 'UTC')::date + ${o.expiryDays}::int
            order by domain_registrator_expiration_date limit ${EVALUATE_LIMIT}`),
        );
        if (expiring.length >= EVALUATE_LIMIT) partial.push('expiry:');
        for (const d of expiring) {
          const days = Number(d.days);
          out.push({
            key: `expiry:${d.id}`,
            event: 'domain_expiring',
            severity: days <= 7 ? 'critical' : 'warning',
            title:
              days < 0
                ? `${d.name} expired on ${d.date}`
                : `${d.name} expires in ${days} day${days === 1 ? '' : 's'} (${d.date})`,
            detail: null,
            subjectKind: 'domain',
            subjectId: d.id,
            subjectName: d.name,
            domainId: d.id,
            since: o.now,
            daysLeft: days,
          });
        }
      }
      return { problems: out, partial };
    },

    /** Jobs and fleet runs that failed or completed with failures after `after` (not the alerts' own jobs). */
    async finishedBadly(after: Date, until: Date) {
      const rows = rowsOf<{
        id: string;
        job_no: number;
        kind: string;
        state: string;
        error: string | null;
        domain_id: string | null;
        domain_name: string | null;
        finished_at: Date | string;
        payload: unknown;
      }>(
        await db.execute(sql`select id, job_no, kind, state, error, domain_id, domain_name, finished_at, payload from jobs
          where finished_at > ${after} and finished_at <= ${until}
            and state in ('failed', 'completed_with_failures') and kind not like 'alerts.%'
          order by finished_at limit ${EVALUATE_LIMIT}`),
      );
      return rows.map((j): ProblemWrite & { finishedAt: Date } => {
        const failed = j.state === 'failed';
        const severity: AlertSeverity = failed ? 'critical' : 'warning';
        // A job doing a plan's (import's, batch's, launch's) work is named and reached by its owner (issue 47).
        const owner = jobOwner(j.kind, j.payload);
        const label = JOB_KIND_LABELS[j.kind] ?? j.kind;
        const name = owner?.name ?? `${label} #${j.job_no}`;
        const explained = explainProviderReason(j.error);
        return {
          key: `job:${j.id}`,
          event: 'job_failed',
          severity,
          title: `${name}${j.domain_name ? ` (${j.domain_name})` : ''} ${failed ? 'failed' : 'completed with failures'}`,
          detail: (explained ? `${explained.reason}\n${explained.detail}` : j.error)?.slice(0, 500) ?? null,
          subjectKind: owner?.name ? owner.kind : 'job',
          subjectId: owner?.name ? owner.id : j.id,
          subjectName: owner?.name ?? `Job #${j.job_no}`,
          domainId: j.domain_id,
          since: toDate(j.finished_at),
          finishedAt: toDate(j.finished_at),
        };
      });
    },
  };
}
export type AlertSources = ReturnType<typeof createAlertSources>;
