import { lazy, Suspense, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import ButtonGroup from 'react-bootstrap/ButtonGroup';
import { TRAFFIC_RANGE_DAYS, TRAFFIC_RANGES, type TrafficRange } from '@fleetdesk/contract';
import { DateTime } from '../../components/date-time.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { useDomainTraffic, useRefreshTraffic } from './traffic-api.ts';

// The chart library comes with the charts, when they are first drawn (decision 070).
const TrafficCharts = lazy(() => import('./traffic-charts.tsx'));

const RANGE_LABELS: Record<TrafficRange, string> = { '7d': 'Last 7 days', '30d': 'Last 30 days' };

/** The domain's Traffic tab: Cloudflare's analytics of its zone, kept by the console, as small charts. */
export function DomainTrafficTab({ domainId }: { domainId: string }) {
  const [range, setRange] = useState<TrafficRange>('7d');
  const traffic = useDomainTraffic(domainId, range);
  const refresh = useRefreshTraffic(domainId, range);
  const data = traffic.data;

  const header = (
    <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
      <ButtonGroup size="sm" aria-label="Range">
        {TRAFFIC_RANGES.map((r) => (
          <Button
            key={r}
            variant={r === range ? 'primary' : 'outline-primary'}
            onClick={() => setRange(r)}
            aria-pressed={r === range}
          >
            {RANGE_LABELS[r]}
          </Button>
        ))}
      </ButtonGroup>
      {data && data.state !== 'no_zone' && (
        <>
          <span className="small text-body-secondary">
            Read from Cloudflare <DateTime value={data.readAt} /> · days in UTC
          </span>
          <Button
            size="sm"
            variant="outline-secondary"
            className="ms-auto"
            disabled={refresh.isPending}
            onClick={() => refresh.mutate()}
          >
            {refresh.isPending ? 'Reading…' : 'Read again'}
          </Button>
        </>
      )}
    </div>
  );

  if (traffic.isPending) return <LoadingSpinner />;
  if (traffic.isError) {
    return (
      <div data-testid="traffic-tab">
        {header}
        <Alert variant="danger" data-testid="traffic-error">
          The traffic could not be read from Cloudflare: {errorMessage(traffic.error)}
          <div className="mt-2">
            <Button size="sm" variant="outline-danger" onClick={() => void traffic.refetch()}>
              Try again
            </Button>
          </div>
        </Alert>
      </div>
    );
  }
  const t = traffic.data;
  return (
    <div data-testid="traffic-tab">
      {header}
      {refresh.error && <Alert variant="danger">{errorMessage(refresh.error)}</Alert>}
      {t.state === 'no_zone' ? (
        <p className="text-body-secondary" data-testid="traffic-empty">
          This domain has no Cloudflare zone, so Cloudflare counts no traffic for it. Link or create its zone on the
          Cloud Flare tab to see its traffic here.
        </p>
      ) : t.state === 'never_read' ? (
        <p className="text-body-secondary" data-testid="traffic-empty">
          The traffic of this domain was not read from Cloudflare yet.
        </p>
      ) : (
        <>
          {t.error && !refresh.error && (
            <Alert variant="warning" data-testid="traffic-stale">
              The last read from Cloudflare failed: {t.error}. The days below are those read before.
            </Alert>
          )}
          {t.totals.requests === 0 ? (
            <p className="text-body-secondary" data-testid="traffic-empty">
              Cloudflare counted no requests to this zone in the {RANGE_LABELS[range].toLowerCase()} ({t.since} to{' '}
              {t.until}).
            </p>
          ) : (
            <Suspense fallback={<LoadingSpinner />}>
              <p className="small text-body-secondary mb-2">
                {TRAFFIC_RANGE_DAYS[range]} days, {t.since} to {t.until}
              </p>
              <TrafficCharts traffic={t} />
            </Suspense>
          )}
        </>
      )}
    </div>
  );
}
