import { useNavigate } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import {
  HEALTH_FIX_ALL,
  HEALTH_STATE_LABELS,
  healthProblemSummary,
  type DomainHealthCheck,
  type HealthCheckKey,
} from '@fleetdesk/contract';
import { DateTime } from '../../components/date-time.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { fleetPlanPath } from '../fleet/fleet-paths.ts';
import { HealthBadge } from './health-badge.tsx';
import { useCheckNow, useDomainHealth, useFix, useFixAll } from './health-api.ts';
import { ProviderReason } from '../../components/provider-reason.tsx';

const FIX_LABELS: Record<string, string> = {
  registrar_ns: "Set the zone's name servers at the registrar",
  ssl: 'Set the SSL mode back',
  tls13: 'Set TLS 1.3 back',
  waf_push: 'Push the WAF rules',
  yandex_verify: 'Verify the host again',
  google_verify: 'Verify the Google property again',
  google_sitemaps: 'Submit the sitemaps with errors to Google again',
};

/** The domain's Health tab: every check in words, observed beside expected, since when, Fix where one exists. */
export function DomainHealthTab({ domainId }: { domainId: string }) {
  const health = useDomainHealth(domainId);
  const checkNow = useCheckNow(domainId);
  const fix = useFix(domainId);
  const fixAll = useFixAll();
  const toasts = useToasts();
  const navigate = useNavigate();

  const onFix = (c: DomainHealthCheck) =>
    fix.mutate(c, {
      onSuccess: (h) => {
        const now = h.checks.find((x) => x.check === c.check);
        toasts.success(
          `Fixed through the console; ${c.label} is now ${now ? HEALTH_STATE_LABELS[now.state] : 'checked'}`,
        );
      },
    });
  const onFixAll = (check: HealthCheckKey) =>
    fixAll.mutate({ check }, { onSuccess: (plan) => void navigate(fleetPlanPath(plan._id)) });

  if (health.isPending) return <LoadingSpinner />;
  if (health.isError) return <Alert variant="danger">{errorMessage(health.error)}</Alert>;
  const h = health.data;
  const busy = checkNow.isPending || fix.isPending;
  const failed = fix.error ?? checkNow.error ?? fixAll.error;
  // Problems first, then ok, then not applicable; the contract's order within each.
  const order = ['failing', 'warning', 'unknown', 'ok', 'na'];
  const checks = [...h.checks].sort((a, b) => order.indexOf(a.state) - order.indexOf(b.state));
  const fixButtons = (c: DomainHealthCheck) =>
    c.fix &&
    c.state === 'failing' && (
      <div className="d-flex flex-wrap gap-1">
        <Button size="sm" variant="primary" disabled={busy} onClick={() => onFix(c)} title={FIX_LABELS[c.fix]}>
          Fix
        </Button>
        {HEALTH_FIX_ALL[c.check] && (
          <Button
            size="sm"
            variant="outline-secondary"
            disabled={fixAll.isPending}
            onClick={() => onFixAll(c.check)}
            title="Plan this fix over every domain failing this check"
          >
            Fix all
          </Button>
        )}
      </div>
    );
  return (
    <div data-testid="domain-health">
      <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
        <span>
          Health: <HealthBadge state={h.state} />
        </span>
        {/* Each number for what it is: "Failing · 7" read as seven failing checks when four were. */}
        {healthProblemSummary(h.checks.map((c) => c.state)) && (
          <span className="small text-body-secondary" data-testid="health-problem-summary">
            {healthProblemSummary(h.checks.map((c) => c.state))}
          </span>
        )}
        <Button
          size="sm"
          variant="outline-primary"
          className="ms-auto"
          disabled={busy}
          onClick={() => checkNow.mutate()}
        >
          {checkNow.isPending ? 'Checking…' : 'Check now'}
        </Button>
      </div>
      {failed && <Alert variant="danger">{errorMessage(failed)}</Alert>}
      {h.checks.length === 0 ? (
        <p className="text-body-secondary">Not checked yet. Check now runs every check of this domain.</p>
      ) : (
        <>
          {/* A table on wide screens; on a phone each check is a block (observed and expected one under the other). */}
          <div className="d-none d-md-block">
            <Table responsive size="sm" className="align-middle small">
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">Result</th>
                  <th scope="col">Observed</th>
                  <th scope="col">Expected</th>
                  <th scope="col">Since</th>
                  <th scope="col">Last run</th>
                  <th scope="col">
                    <span className="visually-hidden">Fix</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {checks.map((c) => (
                  <tr
                    key={c.check}
                    data-testid={`health-${c.check}`}
                    data-state={c.state}
                    className={c.state === 'na' ? 'text-body-secondary' : undefined}
                  >
                    <th scope="row" className="fw-normal">
                      <span className="text-body-secondary">{c.plane}:</span> {c.label}
                    </th>
                    <td>
                      <HealthBadge state={c.state} />
                      <ProviderReason text={c.reason} className="text-body-secondary text-break" />
                    </td>
                    <td data-testid="observed">{c.observed ?? '—'}</td>
                    <td data-testid="expected">{c.expected ?? '—'}</td>
                    <td>
                      <DateTime value={c.since} />
                    </td>
                    <td>
                      <DateTime value={c.lastRun} />
                    </td>
                    <td className="text-nowrap">{fixButtons(c)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </div>
          <ul className="list-unstyled d-md-none small" aria-label="Health checks">
            {checks.map((c) => (
              <li key={c.check} className="border-bottom py-2">
                <div className="d-flex flex-wrap align-items-center gap-2">
                  <span>
                    <span className="text-body-secondary">{c.plane}:</span> {c.label}
                  </span>
                  <HealthBadge state={c.state} />
                </div>
                <ProviderReason text={c.reason} className="text-body-secondary text-break" />
                {c.state !== 'na' && (
                  <dl className="row mb-1 mt-1">
                    <dt className="col-4 fw-normal text-body-secondary">Observed</dt>
                    <dd className="col-8 mb-0 text-break">{c.observed ?? '—'}</dd>
                    <dt className="col-4 fw-normal text-body-secondary">Expected</dt>
                    <dd className="col-8 mb-0 text-break">{c.expected ?? '—'}</dd>
                    <dt className="col-4 fw-normal text-body-secondary">Since</dt>
                    <dd className="col-8 mb-0">
                      <DateTime value={c.since} /> · last run <DateTime value={c.lastRun} />
                    </dd>
                  </dl>
                )}
                {fixButtons(c)}
              </li>
            ))}
          </ul>
        </>
      )}
      {h.history.length > 0 && (
        <details className="small">
          <summary>State changes</summary>
          <ul className="list-unstyled mt-2">
            {h.history.map((e, i) => (
              <li key={i}>
                <DateTime value={e.at} /> · {e.check}: {e.from ? HEALTH_STATE_LABELS[e.from] : 'new'} →{' '}
                {HEALTH_STATE_LABELS[e.to]}
                {e.observed ? ` (${e.observed})` : ''}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
