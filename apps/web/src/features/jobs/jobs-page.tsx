import { Link, useSearchParams } from 'react-router';
import { zoneExportPath } from '../imports/zone-export-path.ts';
import Form from 'react-bootstrap/Form';
import { JOB_KINDS, JOB_KIND_LABELS, JOB_STATES, stateLabel, type Job } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { domainPaths } from '../domains/domains-api.ts';
import { JobButtons, JobOutcome, JobProgress, JobStateBadge, JobSteps } from './job-card.tsx';
import { useJobsList } from './jobs-api.ts';
import { DateTime } from '../../components/date-time.tsx';
import { JobsPerHourChart } from './jobs-per-hour.tsx';

const STATE_OPTIONS = [
  { value: '', label: 'All states' },
  { value: 'active', label: 'Running and queued' },
  ...JOB_STATES.map((s) => ({ value: s, label: stateLabel(s) })),
];

/** The result column: one sentence of what a finished job did (its link a click away), or why it waits. */
function Outcome({ job }: { job: Job }) {
  if (job.summary) return <JobOutcome job={job} />;
  if (job.error) return <span className="text-warning-emphasis">Will retry after: {job.error}</span>;
  return <span className="text-body-secondary">—</span>;
}

/** /jobs: running and recent jobs of the areas the user holds, with progress, outcome and Cancel. */
export function JobsPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const state = searchParams.get('state') ?? '';
  const kind = searchParams.get('kind') ?? '';
  const domainId = searchParams.get('domainId') ?? '';
  const periodic = searchParams.get('periodic') ?? '';
  // One job by its id: where a plan's page links to its job (jobPath).
  const id = searchParams.get('id') ?? '';
  const others = new URLSearchParams(searchParams);
  others.delete('id');
  others.delete('page');
  const allJobs = others.toString() ? `/jobs?${others.toString()}` : '/jobs';
  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(searchParams);
    if (value) next.set(name, value);
    else next.delete(name);
    next.delete('page');
    setSearchParams(next);
  };

  const columns: Column<Job>[] = [
    { header: '№', render: (j) => j.jobNo, width: '5rem' },
    {
      header: 'Job',
      render: (j) => (
        <>
          <div className="text-nowrap">
            {j.kind === 'zone-files.export' ? <Link to={zoneExportPath(j._id)}>{j.kindLabel}</Link> : j.kindLabel}
          </div>
          {/* A job doing a plan's work is that plan's: named by it, and leads to it (issue 47). */}
          {j.link && j.link.kind !== 'domain' && j.name !== `Job #${j.jobNo}` && (
            <div className="small">
              <Link to={j.link.path}>{j.name}</Link>
            </div>
          )}
          {j.createdBy && <div className="small text-body-secondary">by {j.createdBy}</div>}
        </>
      ),
      width: '11rem',
    },
    {
      header: 'Domain',
      render: (j) =>
        j.domainId ? <Link to={domainPaths.edit(j.domainId)}>{j.domainName}</Link> : (j.domainName ?? '—'),
    },
    { header: 'State', render: (j) => <JobStateBadge job={j} />, width: '10rem' },
    {
      header: 'Progress',
      render: (j) => (
        <>
          <JobProgress job={j} />
          {j.steps && (
            <div className="small mt-2">
              <JobSteps steps={j.steps} />
            </div>
          )}
        </>
      ),
    },
    { header: 'Result', render: (j) => <Outcome job={j} />, width: '22rem' },
    { header: 'Started', render: (j) => <DateTime value={j.startedAt ?? j.createdAt} />, width: '9rem' },
    { header: '', key: 'actions', render: (j) => <JobButtons job={j} size="sm" />, width: '6rem' },
  ];

  return (
    <ListView
      title="Jobs"
      useList={useJobsList}
      columns={columns}
      extraParams={{ id, state, kind, domainId, periodic }}
      hideSearch
      emptyText="No jobs"
      filters={
        <>
          <JobsPerHourChart periodic={periodic} />
          {id && (
            <p className="small mb-2" data-testid="jobs-one">
              One job is listed, the one linked to. <Link to={allJobs}>Show all jobs</Link>
            </p>
          )}
          <div className="d-flex flex-wrap gap-2 mb-3">
            <Form.Select
              aria-label="State"
              value={state}
              onChange={(e) => setFilter('state', e.target.value)}
              style={{ maxWidth: 220 }}
            >
              {STATE_OPTIONS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </Form.Select>
            <Form.Select
              aria-label="Kind"
              value={kind}
              onChange={(e) => setFilter('kind', e.target.value)}
              style={{ maxWidth: 260 }}
            >
              <option value="">All jobs</option>
              {JOB_KINDS.map((k) => (
                <option key={k} value={k}>
                  {JOB_KIND_LABELS[k]}
                </option>
              ))}
            </Form.Select>
            <Form.Select
              aria-label="Started by"
              value={periodic}
              onChange={(e) => setFilter('periodic', e.target.value)}
              style={{ maxWidth: 260 }}
            >
              <option value="">People's jobs</option>
              <option value="include">People's jobs and scheduled runs</option>
              <option value="only">Scheduled runs only</option>
            </Form.Select>
          </div>
        </>
      }
    />
  );
}
