import { lazy, Suspense, useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { JobsPerHour } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';

// The chart library comes with the chart (decision 070): the Jobs screen's list loads without it.
const TimeChart = lazy(() => import('../../components/time-chart.tsx'));

/** Jobs ended per hour over the last day, by end state (issue 47), refreshed each minute. */
export function JobsPerHourChart({ periodic }: { periodic: string }) {
  const q = useQuery({
    queryKey: ['jobs', 'per-hour', periodic],
    queryFn: ({ signal }) =>
      api.get<JobsPerHour>('/api/jobs/per-hour', { hours: 24, ...(periodic ? { periodic } : {}) }, signal),
    refetchInterval: 60_000,
  });
  const hours = q.data?.hours;
  const chart = useMemo(() => {
    if (!hours) return null;
    return {
      xs: hours.map((h) => Date.parse(h.hour) / 1000),
      // Stacked: each bar is drawn from the ground to its running sum, tallest first, so each colour shows its own
      // count (bars side by side at one hour would hide each other).
      series: [
        {
          label: 'Cancelled',
          color: '#6c757d',
          values: hours.map((h) => h.completed + h.withFailures + h.failed + h.cancelled),
        },
        { label: 'Failed', color: '#dc3545', values: hours.map((h) => h.completed + h.withFailures + h.failed) },
        { label: 'With failures', color: '#fd7e14', values: hours.map((h) => h.completed + h.withFailures) },
        { label: 'Completed', color: '#198754', values: hours.map((h) => h.completed) },
      ],
    };
  }, [hours]);
  if (!hours || !chart) return null;
  const total = hours.reduce((n, h) => n + h.completed + h.withFailures + h.failed + h.cancelled, 0);
  const failed = hours.reduce((n, h) => n + h.failed, 0);
  return (
    <figure className="border rounded p-2 mb-3" data-testid="jobs-per-hour">
      <figcaption className="d-flex flex-wrap justify-content-between gap-2 small mb-1">
        <span className="fw-semibold">Jobs ended per hour, last 24 hours (UTC)</span>
        <span className="text-body-secondary" data-testid="jobs-per-hour-total">
          {total === 1 ? '1 job' : `${total} jobs`}, {failed} failed
        </span>
      </figcaption>
      <Suspense fallback={<LoadingSpinner />}>
        <TimeChart xs={chart.xs} series={chart.series} bars height={140} testId="jobs-per-hour-chart" />
      </Suspense>
    </figure>
  );
}
