import { Link, useSearchParams } from 'react-router';
import { zoneExportPath } from '../imports/zone-export-page.tsx';
import Form from 'react-bootstrap/Form';
import { JOB_KINDS, JOB_KIND_LABELS, JOB_STATES, type Job } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { domainPaths } from '../domains/domains-api.ts';
import { JobButtons, JobProgress, JobStateBadge, JobSteps } from './job-card.tsx';
import { resultSummary } from './job-summary.ts';
import { useJobsList } from './jobs-api.ts';
import { DateTime } from '../../components/date-time.tsx';

const STATE_OPTIONS = [
  { value: '', label: 'All states' },
  { value: 'active', label: 'Running and queued' },
  ...JOB_STATES.map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) })),
];

/** The result column: what a finished job produced, or why it failed. */
function Outcome({ job }: { job: Job }) {
  if (job.error)
    return <span className={job.state === 'failed' ? 'text-danger' : 'text-warning-emphasis'}>{job.error}</span>;
  if (job.state === 'completed') return <span>{resultSummary(job)}</span>;
  return <span className="text-body-secondary">—</span>;
}

/** /jobs: running and recent jobs of the areas the user holds, with progress, outcome and Cancel. */
export function JobsPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const state = searchParams.get('state') ?? '';
  const kind = searchParams.get('kind') ?? '';
  const domainId = searchParams.get('domainId') ?? '';
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
          <div>
            {j.kind === 'zone-files.export' ? <Link to={zoneExportPath(j._id)}>{j.kindLabel}</Link> : j.kindLabel}
          </div>
          {j.createdBy && <div className="small text-body-secondary">by {j.createdBy}</div>}
        </>
      ),
    },
    {
      header: 'Domain',
      render: (j) =>
        j.domainId ? <Link to={domainPaths.edit(j.domainId)}>{j.domainName}</Link> : (j.domainName ?? '—'),
    },
    { header: 'State', render: (j) => <JobStateBadge job={j} />, width: '7rem' },
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
    { header: 'Result', render: (j) => <Outcome job={j} /> },
    { header: 'Started', render: (j) => <DateTime value={j.startedAt ?? j.createdAt} /> },
    { header: '', key: 'actions', render: (j) => <JobButtons job={j} size="sm" />, width: '6rem' },
  ];

  return (
    <ListView
      title="Jobs"
      useList={useJobsList}
      columns={columns}
      extraParams={{ state, kind, domainId }}
      hideSearch
      emptyText="No jobs"
      filters={
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
        </div>
      }
    />
  );
}
