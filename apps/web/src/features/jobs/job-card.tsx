import type { ReactNode } from 'react';
import { Link } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { indexNowOf, stateVariant, type Job, type JobStep } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { RunStateBadge } from '../../components/run-state-badge.tsx';
import { isActive, useCancelJob, useResumeJob } from './jobs-api.ts';
import { progressPercent, progressText } from './job-summary.ts';

/** The state in the words every screen uses (the API's stateText: failures counted), never green over a failure. */
export function JobStateBadge({ job }: { job: Pick<Job, 'state' | 'stateText' | 'cancelRequested'> }) {
  const label = job.cancelRequested && isActive(job) ? 'Cancelling' : job.stateText;
  return (
    <RunStateBadge variant={stateVariant(job.state)} testId="job-state">
      {label}
    </RunStateBadge>
  );
}

/** A job by its one name: its plan's ("Fleet plan #3", to the plan's page) or its own ("Job #109"). */
export function JobNameLink({ job }: { job: Job }) {
  const owned = job.link && job.link.kind !== 'domain' && job.name !== `Job #${job.jobNo}`;
  const to = owned ? job.link!.path : job.domainId ? `/jobs?domainId=${job.domainId}` : '/jobs';
  return (
    <Link to={to} title={owned ? `Job #${job.jobNo}` : undefined}>
      {job.name}
    </Link>
  );
}

/** What a finished job did, in one sentence, with the place its details are. */
export function JobOutcome({ job }: { job: Job }) {
  if (!job.summary) return <span className="text-body-secondary">—</span>;
  const text = job.summary.replace(/: see the plan$/, '');
  return (
    <span className={job.state === 'failed' ? 'text-danger' : undefined} data-testid="job-summary">
      {text}
      {job.link?.kind === 'plan' && (
        <>
          {job.summary.endsWith(': see the plan') ? ': ' : ' · '}
          <Link to={job.link.path}>see the plan</Link>
        </>
      )}
    </span>
  );
}

/**
 * The IndexNow submission after the job's change (decision 075), for cards that show their own result (the
 * one-sentence outcome already ends with it). A refusal or failure reads as a warning, the job staying green.
 */
export function IndexNowLine({ job }: { job: Job }) {
  const r = indexNowOf(job.result as Record<string, unknown> | null);
  if (!r) return null;
  return (
    <div
      className={`small mt-2 ${r.ok ? 'text-body-secondary' : 'fw-semibold text-warning-emphasis'}`}
      data-testid="indexnow-line"
      title={r.sample.length ? r.sample.join('\n') : undefined}
    >
      {r.message}
    </div>
  );
}

/** The progress bar: a percentage when the total is known, a moving stripe while it is not. */
export function JobProgress({ job }: { job: Job }) {
  const pct = progressPercent(job);
  const active = isActive(job);
  const text = progressText(job);
  return (
    <div style={{ minWidth: 160 }}>
      <ProgressBar
        now={pct ?? 100}
        animated={active}
        striped={active}
        variant={
          stateVariant(job.state) === 'primary' || stateVariant(job.state) === 'info'
            ? undefined
            : stateVariant(job.state)
        }
        label={pct !== null ? `${pct}%` : undefined}
        aria-label={`Progress of job ${job.jobNo}`}
        style={{ height: '1.1rem' }}
      />
      {text && <div className="small text-body-secondary mt-1">{text}</div>}
    </div>
  );
}

const STEP_ICON: Record<JobStep['status'], string> = {
  pending: '○',
  running: '◐',
  done: '✓',
  failed: '✗',
  skipped: '–',
};
const STEP_CLASS: Record<JobStep['status'], string> = {
  pending: 'text-body-secondary',
  running: 'text-primary',
  done: 'text-success',
  failed: 'text-danger',
  skipped: 'text-body-secondary',
};

/** A job's steps, each with its status, and the failure message under the failed one. */
export function JobSteps({ steps }: { steps: JobStep[] }) {
  return (
    <ol className="list-unstyled mb-0" aria-label="Steps">
      {steps.map((s) => (
        <li key={s.key} className={`mb-1 ${STEP_CLASS[s.status]}`} data-step={s.key} data-status={s.status}>
          <span aria-hidden="true" className="me-2">
            {STEP_ICON[s.status]}
          </span>
          {s.label} <span className="small">({s.status})</span>
          {s.message && <div className="small ms-4">{s.message}</div>}
        </li>
      ))}
    </ol>
  );
}

/** Cancel for an active job, Resume for a failed or cancelled resumable one. */
export function JobButtons({ job, size }: { job: Job; size?: 'sm' }) {
  const dialogs = useDialogs();
  const cancel = useCancelJob();
  const resume = useResumeJob();
  const handleCancel = async () => {
    if (!(await dialogs.confirm(`Cancel job #${job.jobNo} (${job.kindLabel})?`, { confirmLabel: 'Cancel job' })))
      return;
    cancel.mutate(job._id, { onError: (e) => void dialogs.apiError(e) });
  };
  return (
    <div className="d-flex gap-2">
      {isActive(job) && (
        <Button
          size={size}
          variant="outline-danger"
          disabled={cancel.isPending || job.cancelRequested}
          onClick={() => void handleCancel()}
        >
          Cancel
        </Button>
      )}
      {job.resumable && (
        <Button
          size={size}
          variant="outline-primary"
          disabled={resume.isPending}
          onClick={() => resume.mutate(job._id, { onError: (e) => void dialogs.apiError(e) })}
        >
          Resume
        </Button>
      )}
    </div>
  );
}

/** A job in full, for the action pages: state, progress, steps, result or error, and its buttons. */
export function JobCard({ job, result }: { job: Job; result?: ReactNode }) {
  return (
    <Card className="mb-3" data-testid="job-card" data-state={job.state}>
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <span className="me-auto">
          <JobNameLink job={job} /> · {job.kindLabel}
        </span>
        <JobStateBadge job={job} />
      </Card.Header>
      <Card.Body>
        <JobProgress job={job} />
        {job.steps && (
          <div className="mt-3">
            <JobSteps steps={job.steps} />
          </div>
        )}
        {(job.state === 'completed' || job.state === 'completed_with_failures') && (
          <Alert variant={stateVariant(job.state)} className="mt-3 mb-0">
            {result ?? <JobOutcome job={job} />}
            {result && <IndexNowLine job={job} />}
          </Alert>
        )}
        {job.error && (
          <Alert variant={job.state === 'failed' ? 'danger' : 'warning'} className="mt-3 mb-0">
            {job.state === 'queued' ? 'Will retry after: ' : ''}
            {job.error}
          </Alert>
        )}
        <div className="d-flex flex-wrap align-items-center gap-3 mt-3">
          <span className="small text-body-secondary me-auto">
            Started <DateTime value={job.startedAt ?? job.createdAt} />
            {job.finishedAt && (
              <>
                {' '}
                · finished <DateTime value={job.finishedAt} />
              </>
            )}
            {job.attempts > 1 ? ` · attempt ${job.attempts}` : ''}
          </span>
          <JobButtons job={job} />
        </div>
      </Card.Body>
    </Card>
  );
}
