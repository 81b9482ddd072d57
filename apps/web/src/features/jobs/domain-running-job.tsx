import { Link } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import { JobButtons, JobProgress, JobStateBadge } from './job-card.tsx';
import { useActiveDomainJobs } from './jobs-api.ts';

/** On a domain's edit page: the domain's running (or queued) jobs, if any, with their progress. */
export function DomainRunningJob({ domainId }: { domainId: string }) {
  const q = useActiveDomainJobs(domainId);
  const items = q.data?.items ?? [];
  if (!items.length) return null;
  return (
    <>
      {items.map((job) => (
        <Alert
          key={job._id}
          variant="info"
          className="d-flex flex-wrap align-items-center gap-3"
          data-testid="running-job"
        >
          <span>
            <Link to={`/jobs?domainId=${domainId}`}>Job #{job.jobNo}</Link> · {job.kindLabel}
          </span>
          <JobStateBadge job={job} />
          <div className="flex-grow-1">
            <JobProgress job={job} />
          </div>
          <JobButtons job={job} size="sm" />
        </Alert>
      ))}
    </>
  );
}
