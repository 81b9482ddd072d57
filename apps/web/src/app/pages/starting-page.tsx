import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { dashboardLinks, type Dashboard } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import { errorMessage } from '../../lib/api-error.ts';
import { DateTime, ExpiryDate } from '../../components/date-time.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { historyPath } from '../../components/form-view.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { Figure, ListPanel } from '../../components/panel.tsx';
import { SECTIONS } from '../menu-items.ts';
import { HealthPanel } from '../../features/health/health-panel.tsx';
import { FleetTrafficPanels } from '../../features/traffic/fleet-traffic-panel.tsx';

export function StartingPage() {
  const query = useQuery({
    queryKey: ['dashboard'],
    queryFn: ({ signal }) => api.get<Dashboard>('/api/dashboard', undefined, signal),
  });
  const d = query.data;
  const links = d ? dashboardLinks(d) : null;

  return (
    <section>
      <div className="fd-page-header">
        <h1 className="h3 mb-0 me-auto">Starting Page</h1>
        <RefreshButton onRefresh={() => void query.refetch()} pending={query.isFetching} />
      </div>

      {query.isPending ? (
        <LoadingSpinner />
      ) : query.isError ? (
        <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />
      ) : (
        d &&
        links && (
          <>
            <div className="fd-figures" aria-label="Fleet figures" role="group">
              {d.domains && (
                <>
                  <Figure label="Domains" value={d.domains.total} to={links.domains} testId="figure-domains" />
                  <Figure
                    label="Active"
                    value={d.domains.active}
                    to={links.active}
                    tone="success"
                    testId="figure-active"
                  />
                  <Figure
                    label="Inactive"
                    value={d.domains.inactive}
                    to={links.inactive}
                    tone="secondary"
                    testId="figure-inactive"
                  />
                  <Figure
                    label={`Expiring in ${d.expiringWithinDays} days`}
                    value={d.domains.expiringSoon}
                    to={links.expiring}
                    tone="warning"
                    testId="figure-expiring"
                  />
                  <Figure
                    label="Expired"
                    value={d.domains.expired}
                    to={links.expired}
                    tone="danger"
                    testId="figure-expired"
                  />
                </>
              )}
              {d.servers && (
                <>
                  <Figure
                    label="Servers online"
                    value={d.servers.online}
                    to={links.serversOnline}
                    tone="success"
                    testId="figure-servers-online"
                  />
                  <Figure
                    label="Servers offline"
                    value={d.servers.offline}
                    to={links.serversOffline}
                    tone="danger"
                    testId="figure-servers-offline"
                  />
                </>
              )}
              {d.proxies && (
                <Figure
                  label="Proxies failing"
                  value={d.proxies.failing}
                  to={links.proxiesFailing}
                  tone="danger"
                  testId="figure-proxies-failing"
                />
              )}
              {d.clouds && <Figure label="Clouds" value={d.clouds.total} to={links.clouds} testId="figure-clouds" />}
              <Figure label="Running jobs" value={d.runningJobs.total} to={links.jobs} testId="figure-jobs" />
            </div>

            <div className="fd-panels">
              {d.domains && (
                <ListPanel
                  title={`Expiring in the next ${d.expiringWithinDays} days`}
                  all={links.expiring}
                  allLabel="All expiring domains"
                  items={d.domains.expiring}
                  empty={`No domain expires in the next ${d.expiringWithinDays} days.`}
                  testId="expiring-list"
                  row={(x) => (
                    <>
                      <Link to={`/domains/${x._id}`} className="text-truncate">
                        {x.domainName}
                      </Link>
                      <ExpiryDate value={x.expirationDate} today={d.today} />
                    </>
                  )}
                />
              )}
              <ListPanel
                title="Running jobs"
                all={links.jobs}
                allLabel="All running jobs"
                items={d.runningJobs.items}
                empty="No job is running."
                testId="jobs-list"
                rowClassName="flex-wrap"
                row={(j) => (
                  <>
                    <Link to={j.path} className="text-truncate">
                      {j.name} · {j.kindLabel}
                      {j.domainName ? ` · ${j.domainName}` : ''}
                    </Link>
                    <StatusBadge status={j.state} />
                    {j.percent !== null && (
                      <ProgressBar
                        now={j.percent}
                        label={`${j.percent}%`}
                        className="w-100"
                        style={{ height: 6 }}
                        visuallyHidden
                      />
                    )}
                  </>
                )}
              />
              {d.traffic && <FleetTrafficPanels traffic={d.traffic} />}
              {d.latestChanges && (
                <ListPanel
                  title="Latest changes"
                  all={links.audit}
                  allLabel="All changes in the audit log"
                  items={d.latestChanges}
                  empty="Nothing has changed yet."
                  testId="changes-list"
                  row={(c) => (
                    <>
                      <Link
                        to={c.entityId ? historyPath(c.entity, c.entityId) : `/audit-log?entity=${c.entity}`}
                        className="text-truncate text-body"
                      >
                        {c.sentence}
                      </Link>
                      <DateTime value={c.at} className="text-body-secondary small" />
                    </>
                  )}
                />
              )}
            </div>
            {d.health && <HealthPanel summary={d.health} />}
          </>
        )
      )}

      <h2 className="h6 text-body-secondary text-uppercase mt-4 mb-2">Sections</h2>
      <nav aria-label="Sections">
        <ul className="fd-section-links">
          {SECTIONS.map((section) => (
            <li key={section.to}>
              <Link to={section.to}>{section.label}</Link>
            </li>
          ))}
        </ul>
      </nav>
    </section>
  );
}
