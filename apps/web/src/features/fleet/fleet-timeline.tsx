import { lazy, Suspense, useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { FleetPlan, FleetTimeline } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';

// The chart library comes with the chart (decision 070), once a run has started.
const TimeChart = lazy(() => import('../../components/time-chart.tsx'));

const COLORS = ['#0d6efd', '#6f42c1', '#20c997', '#fd7e14', '#d63384', '#6c757d'];

/**
 * A run over time (issue 47): the domains done so far, and each Cloudflare account's requests per minute against the
 * share of its budget background work may use (every process's requests of the account, its operators' included).
 */
export function FleetTimelineCharts({ plan }: { plan: FleetPlan }) {
  const started = plan.state !== 'planning' && plan.state !== 'planned' && plan.run.total > plan.run.pending;
  const live = plan.state === 'running';
  const q = useQuery({
    queryKey: ['fleet/plans', 'timeline', plan._id, plan.state],
    queryFn: ({ signal }) =>
      api.get<FleetTimeline>(`/api/fleet/plans/${encodeURIComponent(plan._id)}/timeline`, undefined, signal),
    enabled: started,
    refetchInterval: live ? 5000 : false,
  });
  const t = q.data;
  const charts = useMemo(() => {
    if (!t || !t.minutes.length) return null;
    const xs = t.minutes.map((m) => Date.parse(m.minute) / 1000);
    let done = 0;
    let failed = 0;
    const doneLine: number[] = [];
    const failedLine: number[] = [];
    for (const m of t.minutes) {
      done += m.changed + m.same + m.skipped;
      failed += m.failed;
      doneLine.push(done);
      failedLine.push(failed);
    }
    return {
      xs,
      progress: [
        { label: 'Done', color: '#198754', values: doneLine },
        { label: 'Failed', color: '#dc3545', values: failedLine },
      ],
      // Each account's requests a minute against what its budget lets background work send.
      accounts: [
        ...t.accounts.map((a, i) => ({
          label: a,
          color: COLORS[i % COLORS.length]!,
          values: t.minutes.map((m) => m.requests[a] ?? 0),
        })),
        ...(t.backgroundPerMinute > 0
          ? [
              {
                label: `Budget for background work (${t.backgroundPerMinute} a minute)`,
                color: '#adb5bd',
                values: t.minutes.map(() => t.backgroundPerMinute),
              },
            ]
          : []),
      ],
    };
  }, [t]);
  if (!started || !charts || !t) return null;
  return (
    <div className="row g-3 mt-1" data-testid="fleet-timeline">
      <figure className="col-12 col-lg-6 mb-0">
        <div className="border rounded p-2 h-100">
          <figcaption className="small fw-semibold mb-1">Domains finished over the run (UTC)</figcaption>
          <Suspense fallback={<LoadingSpinner />}>
            <TimeChart xs={charts.xs} series={charts.progress} height={150} testId="fleet-timeline-progress" />
          </Suspense>
        </div>
      </figure>
      <figure className="col-12 col-lg-6 mb-0">
        <div className="border rounded p-2 h-100">
          <figcaption className="small fw-semibold mb-1">
            Cloudflare requests per minute by account, against its budget
          </figcaption>
          <Suspense fallback={<LoadingSpinner />}>
            <TimeChart xs={charts.xs} series={charts.accounts} height={150} testId="fleet-timeline-accounts" />
          </Suspense>
        </div>
      </figure>
      {t.truncated && <p className="small text-body-secondary mb-0">The last 24 hours of the run are shown.</p>}
    </div>
  );
}
