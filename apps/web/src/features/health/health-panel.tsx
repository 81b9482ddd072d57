import { Link, useNavigate } from 'react-router';
import Button from 'react-bootstrap/Button';
import {
  HEALTH_FIX_ALL,
  HEALTH_STATE_LABELS,
  type HealthCheckKey,
  type HealthState,
  type HealthSummary,
} from '@fleetdesk/contract';
import { DateTime } from '../../components/date-time.tsx';
import { Figure, Panel } from '../../components/panel.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { formatNumber } from '../../lib/format.ts';
import { fleetPlanPath } from '../fleet/fleet-paths.ts';
import { useFixAll } from './health-api.ts';

const TONES: Partial<Record<HealthState, string>> = { failing: 'danger', warning: 'warning', ok: 'success' };
const SHOWN: HealthState[] = ['failing', 'warning', 'unknown', 'ok'];
/** The per-check columns: each count links to the list filtered to that check in that state. */
const COLUMNS: HealthState[] = ['failing', 'warning', 'unknown', 'ok'];
const LINK_TONES: Partial<Record<HealthState, string>> = {
  failing: 'text-danger',
  warning: 'text-warning-emphasis',
  ok: 'text-success',
};

/**
 * The dashboard's fleet health: domains by worst result, counts per check, and the latest to start failing. The
 * counts come in the dashboard's own answer (one request on first load, issue 47).
 */
export function HealthPanel({ summary: s }: { summary: HealthSummary }) {
  const fixAll = useFixAll();
  const navigate = useNavigate();
  const onFixAll = (check: HealthCheckKey) =>
    fixAll.mutate({ check }, { onSuccess: (plan) => void navigate(fleetPlanPath(plan._id)) });
  return (
    <Panel
      title="Fleet health"
      className="mt-3"
      testId="health-panel"
      action={<Link to="/domains?health=problems">Domains with problems</Link>}
    >
      <div className="fd-figures mb-3" role="group" aria-label="Domains by health">
        {SHOWN.map((st) => (
          <Figure
            key={st}
            label={HEALTH_STATE_LABELS[st]}
            value={s.domains[st] ?? 0}
            to={`/domains?health=${st}`}
            tone={TONES[st]}
            testId={`health-figure-${st}`}
          />
        ))}
        <Figure
          label="Not checked yet"
          value={s.domains.unchecked ?? 0}
          to="/domains?health=unchecked"
          testId="health-figure-unchecked"
        />
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
    </Panel>
  );
}
