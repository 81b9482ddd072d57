import { Link } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import { jobPath } from '../jobs/job-path.ts';

export interface CheckHealthStarted {
  count: number;
  jobId: string;
  jobNo: number;
}

/**
 * The domains list's Check health result, in the page above the table rather than a toast over its rows (issue 47).
 * Loaded when first shown, like the toasts: react-bootstrap's Alert (its fade) stays out of the list's first load
 * (decision 048).
 */
export default function CheckHealthResult({ started, onClose }: { started: CheckHealthStarted; onClose: () => void }) {
  const { count, jobId, jobNo } = started;
  return (
    <Alert variant="success" dismissible onClose={onClose} role="status" data-testid="check-health-result">
      Checking the health of {count} domain{count === 1 ? '' : 's'}: <Link to={jobPath(jobId)}>job #{jobNo}</Link>
    </Alert>
  );
}
