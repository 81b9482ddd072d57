import { Link, useNavigate } from 'react-router';
import Button from 'react-bootstrap/Button';
import { HEALTH_FIX_ALL, HEALTH_STATE_LABELS, type HealthCheckKey, type HealthState } from '@fleetdesk/contract';
import { DateTime } from '../../components/date-time.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { formatNumber } from '../../lib/format.ts';
import { fleetPlanPath } from '../fleet/fleet-api.ts';
import { useFixAll, useHealthSummary } from './health-api.ts';

const TONES: Partial<Record<HealthState, string>> = { failing: 'danger', warning: 'warning', ok: 'success' };
const SHOWN: HealthState[] = ['failing', 'warning', 'unknown', 'ok'];
/** The per-check columns: each count links to the list filtered to that check in that state. */
const COLUMNS: HealthState[] = ['failing', 'warning', 'unknown', 'ok'];
const LINK_TONES: Partial<Record<HealthState, string>> = {
  failing: 'text-danger',
  warning: 'text-warning-emphasis',
  ok: 'text-success',
};

/** The dashboard's fleet health: domains by worst result, counts per check, and the latest to start failing. */
export function HealthPanel() {
  const q = useHealthSummary();
  const fixAll = useFixAll();
  const navigate = useNavigate();
  const onFixAll = (check: HealthCheckKey) =>
    fixAll.mutate({ check }, { onSuccess: (plan) => void navigate(fleetPlanPath(plan._id)) });
  // Without the domains area (403) the panel is not shown; other failures say so.
  if (q.isPending || (q.isError && q.error.status === 403)) return null;
  if (q.isError) return <p className="text-danger small">Fleet health could not be read: {q.error.message}</p>;
  const s = q.data;
  return (
    <section className="fd-panel mt-3" aria-label="Fleet health" data-testid="health-panel">
      <div className="fd-panel-header">
        <h2 className="h6 mb-0">Fleet health</h2>
        <Link to="/domains?health=problems">Domains with problems</Link>
      </div>
      <div className="fd-panel-body">
        <div className="fd-figures mb-3" role="group" aria-label="Domains by health">
          {SHOWN.map((st) => (
            <Link
              key={st}
              to={`/domains?health=${st}`}
              className="fd-figure"
              data-testid={`health-figure-${st}`}
              aria-label={`${HEALTH_STATE_LABELS[st]}: ${formatNumber(s.domains[st] ?? 0)}`}
            >
              <span className={`fd-figure-value${TONES[st] && (s.domains[st] ?? 0) > 0 ? ` text-${TONES[st]}` : ''}`}>
                {formatNumber(s.domains[st] ?? 0)}
              </span>
              <span className="fd-figure-label">{HEALTH_STATE_LABELS[st]}</span>
            </Link>
          ))}
          <Link to="/domains?health=unchecked" className="fd-figure" data-testid="health-figure-unchecked">
            <span className="fd-figure-value">{formatNumber(s.domains.unchecked ?? 0)}</span>
            <span className="fd-figure-label">Not checked yet</span>
          </Link>
        </div>
        <div className="row g-3">
          <div className="col-lg-7">
            {/* A table from tablets up; on a phone each check is a line of its counts (no sideways scrolling). */}
            <div className="d-none d-md-block">
              <table className="table table-sm small mb-0" aria-label="Checks by result">
                <thead>
                  <tr>
                    <th scope="col">Check</th>
                    {COLUMNS.map((st) => (
                      <th key={st} scope="col" className="text-end">
                        {HEALTH_STATE_LABELS[st]}
                      </th>
                    ))}
                    <th scope="col">
                      <span className="visually-hidden">Fix all</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {s.checks.map((c) => (
                    <tr key={c.check} data-testid={`health-check-${c.check}`}>
                      <th scope="row" className="fw-normal">
                        {c.label}
                      </th>
                      {COLUMNS.map((st) => {
                        const n = c.counts[st] ?? 0;
                        // Every count opens the list filtered to exactly those domains (check and state).
                        return (
                          <td key={st} className="text-end">
                            {n ? (
                              <Link
                                className={LINK_TONES[st]}
                                to={`/domains?check=${c.check}&checkState=${st}`}
                                data-testid={`health-count-${c.check}-${st}`}
                                aria-label={`${c.label}, ${HEALTH_STATE_LABELS[st]}: ${formatNumber(n)} domains`}
                              >
                                {formatNumber(n)}
                              </Link>
                            ) : (
                              <span className="text-body-secondary">0</span>
                            )}
                          </td>
                        );
                      })}
                      <td className="text-end text-nowrap">
                        {HEALTH_FIX_ALL[c.check as HealthCheckKey] && (c.counts.failing ?? 0) > 0 && (
                          <Button
                            size="sm"
                            variant="outline-secondary"
                            className="py-0"
                            disabled={fixAll.isPending}
                            onClick={() => onFixAll(c.check as HealthCheckKey)}
                            aria-label={`Fix all: ${c.label}`}
                            title="Plan this fix over every domain failing this check"
                          >
                            Fix all
                          </Button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <ul className="list-unstyled d-md-none small mb-0" aria-label="Checks by result">
              {s.checks.map((c) => {
                const shown = COLUMNS.filter((st) => (c.counts[st] ?? 0) > 0);
                return (
                  <li key={c.check} className="border-bottom py-2">
                    <div>{c.label}</div>
                    <div className="d-flex flex-wrap align-items-center column-gap-3">
                      {shown.length === 0 && (
                        <span className="text-body-secondary">
                          {(c.counts.na ?? 0) > 0 ? 'Not applicable to any domain' : 'Not checked yet'}
                        </span>
                      )}
                      {shown.map((st) => (
                        <Link key={st} className={LINK_TONES[st]} to={`/domains?check=${c.check}&checkState=${st}`}>
                          {formatNumber(c.counts[st] ?? 0)} {HEALTH_STATE_LABELS[st].toLowerCase()}
                        </Link>
                      ))}
                      {HEALTH_FIX_ALL[c.check as HealthCheckKey] && (c.counts.failing ?? 0) > 0 && (
                        <Button
                          size="sm"
                          variant="outline-secondary"
                          className="py-0 ms-auto"
                          disabled={fixAll.isPending}
                          onClick={() => onFixAll(c.check as HealthCheckKey)}
                          aria-label={`Fix all: ${c.label}`}
                        >
                          Fix all
                        </Button>
                      )}
                    </div>
                  </li>
                );
              })}
            </ul>
            {fixAll.error && <p className="text-danger small mt-2 mb-0">{errorMessage(fixAll.error)}</p>}
          </div>
          <div className="col-lg-5">
            <h3 className="h6">Latest to start failing</h3>
            {s.recentFailing.length === 0 ? (
              <p className="text-body-secondary small mb-0">No domain is failing a check.</p>
            ) : (
              <ul className="fd-rows" data-testid="recent-failing">
                {s.recentFailing.map((r) => (
                  <li key={`${r.domainId}-${r.check}`}>
                    <Link to={`/domains/${r.domainId}?tab=health`} className="text-truncate">
                      {r.domainName}
                    </Link>
                    <span className="small text-body-secondary text-truncate">{r.check}</span>
                    <DateTime value={r.at} className="small text-body-secondary" />
                  </li>
                ))}
              </ul>
            )}
            {s.cycle && <p className="small text-body-secondary mt-2 mb-0">{s.cycle.message}.</p>}
          </div>
        </div>
      </div>
    </section>
  );
}
