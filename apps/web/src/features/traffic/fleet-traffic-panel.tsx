import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import type { DashboardTraffic } from '@fleetdesk/contract';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { Panel } from '../../components/panel.tsx';
import { formatNumber } from '../../lib/format.ts';

// The chart library comes with the chart, when the dashboard first draws it (decision 070).
const FleetTrafficChart = lazy(() => import('./traffic-charts.tsx').then((m) => ({ default: m.FleetTrafficChart })));

const trafficTab = (id: string) => `/domains/${id}?tab=traffic`;

/** "−12 %" / "+4 %" against the week before, or null when there was nothing the week before. */
function change(now: number, before: number): string | null {
  if (before <= 0) return null;
  const pct = Math.round(((now - before) / before) * 100);
  return `${pct > 0 ? '+' : pct < 0 ? '−' : '±'}${Math.abs(pct)} %`;
}

/** The dashboard's traffic: the fleet's requests (Cloudflare, kept) and the domains whose traffic fell most. */
export function FleetTrafficPanels({ traffic }: { traffic: DashboardTraffic }) {
  const weekChange = change(traffic.week.requests, traffic.previousWeek.requests);
  const any = traffic.days.some((d) => d.requests > 0);
  return (
    <>
      <Panel title="Fleet traffic (Cloudflare)" testId="fleet-traffic">
        {traffic.domainsRead === 0 ? (
          <p className="text-body-secondary mb-0">
            No domain&apos;s traffic has been read from Cloudflare yet. It is read for every domain with a zone, in the
            background, and when a domain&apos;s Traffic tab is opened.
          </p>
        ) : (
          <>
            <p className="mb-1" data-testid="fleet-traffic-week">
              <span className="fw-semibold">{formatNumber(traffic.week.requests)}</span> requests in the last 7 days
              {weekChange && (
                <span className="text-body-secondary">
                  {' '}
                  ({weekChange} against the week before, {formatNumber(traffic.previousWeek.requests)})
                </span>
              )}
            </p>
            <p className="small text-body-secondary mb-2">
              {formatNumber(traffic.domainsRead)} domain{traffic.domainsRead === 1 ? '' : 's'} read · whole days{' '}
              {traffic.week.since} to {traffic.week.until} (UTC)
            </p>
            {any ? (
              <Suspense fallback={<LoadingSpinner />}>
                <FleetTrafficChart days={traffic.days} />
              </Suspense>
            ) : (
              <p className="text-body-secondary mb-0">Cloudflare counted no requests in the last 14 days.</p>
            )}
          </>
        )}
      </Panel>
      <Panel title="Traffic fell most (week on week)" testId="traffic-falls-panel">
        {traffic.falls.length === 0 ? (
          <p className="text-body-secondary mb-0">
            No domain&apos;s traffic fell against the week before
            {traffic.domainsRead === 0 ? ' (none was read yet)' : ''}.
          </p>
        ) : (
          <ul className="fd-rows" data-testid="traffic-falls">
            {traffic.falls.map((f) => (
              <li key={f._id}>
                <Link to={trafficTab(f._id)} className="text-truncate">
                  {f.domainName}
                </Link>
                <span
                  className="text-danger text-nowrap"
                  title={`${formatNumber(f.requests)} requests, ${formatNumber(f.previous)} the week before`}
                >
                  −{Math.abs(f.change)} %
                </span>
              </li>
            ))}
          </ul>
        )}
      </Panel>
    </>
  );
}
