import {
  ADMIN_RULE,
  CANCELLING_TEXT,
  JOB_AREAS,
  jobName,
  jobOwner,
  jobSentence,
  stateText,
  tallyOf,
  type Job,
  type JobListQuery,
  type JobsHour,
  type JobsPerHour,
  type JobsPerHourQuery,
  type JobProgress,
  type JobStep,
  type ListResult,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { NotFoundError, ValidationError } from '../../http/errors.ts';
import { kindLabel, type JobEngine } from '../../lib/jobs.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { DomainsRepository } from '../domains/domains.repository.ts';
import type { JobRow, JobsRepository } from './jobs.repository.ts';

export const JOB_MESSAGES = {
  notFound: 'Job not found',
  domainNotFound: 'Domain not found',
  targetMissing: 'The target domain does not exist',
  sameDomain: 'The target domain must be another domain',
} as const;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The areas an actor's rules open; null means all (the `cnv` rule). */
const areasOf = (actor: Actor): string[] | null =>
  actor.rules.includes(ADMIN_RULE) ? null : JOB_AREAS.filter((a) => actor.rules.includes(a));

export function createJobsService(deps: {
  repo: JobsRepository;
  domains: Pick<DomainsRepository, 'findRow'>;
  audit: AuditService;
  engine: () => JobEngine;
}) {
  const { repo, audit } = deps;

  /** Where a job's details are: the plan (import, batch, launch) it works for, else the domain it worked on. */
  const linkOf = (r: JobRow): Job['link'] => {
    const owner = jobOwner(r.kind, r.payload);
    if (owner) return { kind: owner.kind, id: owner.id, label: owner.name ?? `the ${owner.kind}`, path: owner.path };
    if (r.domainId)
      return { kind: 'domain', id: r.domainId, label: r.domainName ?? 'the domain', path: `/domains/${r.domainId}` };
    return null;
  };

  const toJob = (r: JobRow): Job => ({
    _id: r.id,
    jobNo: r.jobNo,
    kind: r.kind,
    kindLabel: kindLabel(r.kind),
    name: jobName(r),
    state: r.state,
    // The same words as the plan page and the fleet list (outcomes.ts), from the result or the live progress.
    // A cancel asked for takes effect in the answer at once, until the worker (or a takeover) ends the job.
    stateText:
      r.state === 'running' && r.cancelRequested
        ? CANCELLING_TEXT
        : stateText(r.state, tallyOf(r.result) ?? (r.progress as JobProgress | null)?.tally ?? null),
    summary: jobSentence({ kind: r.kind, state: r.state, result: r.result ?? null, error: r.error }),
    link: linkOf(r),
    domainId: r.domainId,
    domainName: r.domainName,
    payload: r.payload,
    progress: (r.progress as Job['progress']) ?? null,
    steps: (r.steps as JobStep[] | null) ?? null,
    result: r.result ?? null,
    error: r.error,
    attempts: r.attempts,
    cancelRequested: r.cancelRequested,
    resumable: !!deps.engine().registry.get(r.kind)?.resumable && (r.state === 'failed' || r.state === 'cancelled'),
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    updatedAt: r.updatedAt.toISOString(),
  });

  /** A job the actor may see: one of their areas. Others answer 404, as if it did not exist. */
  const visible = async (id: string, actor: Actor) => {
    const row = await repo.find(id);
    const areas = areasOf(actor);
    if (!row || (areas && !areas.includes(row.area))) throw new NotFoundError(JOB_MESSAGES.notFound);
    return row;
  };

  return {
    toJob,
    /** Jobs ended per hour, each hour of the range present (a quiet hour is zeros, not a gap in the chart). */
    async perHour(q: JobsPerHourQuery, actor: Actor): Promise<JobsPerHour> {
      const { since, rows } = await repo.endedPerHour(q.hours, areasOf(actor), q.periodic);
      const hours: JobsHour[] = Array.from({ length: q.hours }, (_, i) => ({
        hour: new Date(since.getTime() + i * 3_600_000).toISOString().replace('.000Z', 'Z'),
        completed: 0,
        withFailures: 0,
        failed: 0,
        cancelled: 0,
      }));
      const byHour = new Map(hours.map((h) => [h.hour, h]));
      for (const r of rows) {
        const h = byHour.get(r.hour);
        if (!h) continue;
        if (r.state === 'completed') h.completed += r.n;
        else if (r.state === 'completed_with_failures') h.withFailures += r.n;
        else if (r.state === 'failed') h.failed += r.n;
        else if (r.state === 'cancelled') h.cancelled += r.n;
      }
      return { hours };
    },
    async list(q: JobListQuery, actor: Actor): Promise<ListResult<Job>> {
      const res = await repo.list(q, areasOf(actor));
      return { items: res.items.map(toJob), itemsCount: res.itemsCount };
    },
    async get(id: string, actor: Actor): Promise<Job> {
      return toJob(await visible(id, actor));
    },
    async cancel(id: string, actor: Actor): Promise<Job> {
      const row = await visible(id, actor);
      const after = await deps.engine().cancel(row);
      await audit.record(actor, {
        action: 'cancel',
        entity: 'jobs',
        entityId: id,
        details: { kind: row.kind, jobNo: row.jobNo, domainId: row.domainId },
      });
      return toJob(after);
    },
    async resume(id: string, actor: Actor): Promise<Job> {
      const row = await visible(id, actor);
      const after = await deps.engine().resume(row);
      await audit.record(actor, {
        action: 'resume',
        entity: 'jobs',
        entityId: id,
        details: { kind: row.kind, jobNo: row.jobNo, domainId: row.domainId },
      });
      return toJob(after);
    },

    /**
     * Starts a job on a domain: the domain (and a target domain, when the payload names one) must exist and
     * differ; a second active job of the kind on the domain is a 409 naming it.
     */
    async startForDomain(kind: string, domainId: string, payload: Record<string, unknown>, actor: Actor) {
      const domain = await deps.domains.findRow(domainId);
      if (!domain) throw new NotFoundError(JOB_MESSAGES.domainNotFound);
      const targetId = payload.targetDomainId as string | undefined;
      let targetDomainName: string | undefined;
      if (targetId !== undefined) {
        if (targetId === domainId)
          throw new ValidationError(
            JOB_MESSAGES.sameDomain,
            { targetDomainId: JOB_MESSAGES.sameDomain },
            'same_domain',
          );
        const target = await deps.domains.findRow(targetId);
        if (!target)
          throw new ValidationError(JOB_MESSAGES.targetMissing, { targetDomainId: JOB_MESSAGES.targetMissing });
        targetDomainName = target.domainName;
      }
      const row = await deps
        .engine()
        .enqueue(
          kind,
          { ...payload, domainId, ...(targetDomainName ? { targetDomainName } : {}) },
          { createdBy: actor.username, domainName: domain.domainName },
        );
      await audit.record(actor, {
        action: 'start_job',
        entity: 'domains',
        entityId: domainId,
        details: { kind, jobNo: row.jobNo, jobId: row.id, ...(targetId ? { targetDomainId: targetId } : {}) },
      });
      return toJob(row);
    },
  };
}
export type JobsService = ReturnType<typeof createJobsService>;
