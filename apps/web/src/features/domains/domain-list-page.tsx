import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import Button from 'react-bootstrap/Button';
import {
  FLEET_IDS_MAX,
  HEALTH_FIX_ALL,
  ZONE_EXPORT_MAX,
  healthCheckOf,
  type DomainListItem,
  type HealthCheckKey,
} from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { useListUrlState } from '../../components/use-list-url-state.ts';
import { FLEET_NEW_PATH, type FleetNewState, type FleetSelectionSent } from '../fleet/fleet-paths.ts';
import { zoneExportPath } from '../imports/zone-export-path.ts';
import { api } from '../../lib/api-client.ts';
import { useDialogs } from '../../components/dialog-host.tsx';
import { DomainFilterBar, filterParams, useDomainFilters } from './domain-filters.tsx';
import type { Column } from '../../components/list-table.tsx';
import { DOMAIN_EXPORT_URL, domainPaths, domainsApi } from './domains-api.ts';
import { ExpiryDate } from '../../components/date-time.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { HealthBadge } from '../health/health-badge.tsx';
import { useCheckSelection, useFixAll } from '../health/health-api.ts';
import { fleetPlanPath } from '../fleet/fleet-paths.ts';
import type { CheckHealthStarted } from './check-health-result.tsx';
import { ColumnChooser, useColumnChoice, type OptionalColumn } from '../../components/column-chooser.tsx';
import { serverLabel } from '../../components/pickers/server-picker.tsx';
import { useDomainListView } from '../../components/pickers/domain-picker.tsx';
import { accountsApi as webmasterAccountsApi } from '../yandex-webmaster/yandex-webmaster-api.ts';

// Shown after Check health only: react-bootstrap's Alert is not part of the list's first load (decision 048).
const CheckHealthResult = lazy(() => import('./check-health-result.tsx'));

/** A 'YYYY-MM-DD' date in the operator's locale, read as a calendar day (no time zone shift). */
export function formatDay(value: string | null | undefined): string {
  if (!value) return '';
  const [y, m, d] = value.split('-').map(Number);
  if (!y || !m || !d) return value;
  return new Date(y, m - 1, d).toLocaleDateString();
}

/** The spec's columns, always shown. */
const columns: Column<DomainListItem>[] = [
  { header: '№', render: (d) => d.domainNo, width: '6rem' },
  {
    header: 'Domain Name',
    render: (d) => (
      <Link to={domainPaths.edit(d._id)} title={d.domainName !== d.domainNameUnicode ? d.domainName : undefined}>
        {d.domainNameUnicode}
      </Link>
    ),
  },
  { header: 'Redirect Domain', render: (d) => d.redirectDomainNameUnicode ?? '' },
  {
    header: 'Expiration Date',
    render: (d) => <ExpiryDate value={d.domainRegistratorExpirationDate} />,
    width: '10rem',
  },
  { header: 'Restricted', render: (d) => (d.isRestricted ? 'Yes' : ''), width: '7rem' },
  {
    header: 'Status',
    width: '7rem',
    render: (d) => <StatusBadge status={d.status} />,
  },
];

/** Fleet health (decision 045): always shown, after the spec's columns. */
const healthColumn: Column<DomainListItem> = {
  header: 'Health',
  width: '10rem',
  render: (d) => <HealthBadge state={d.healthState} counts={d.healthCounts} />,
};

function YandexAccountName({ id }: { id: string }) {
  // The list carries the account's id only; its name comes from the account (cached per id).
  const account = webmasterAccountsApi.useItem(id);
  return <>{account.data?.name ?? (account.isError ? '—' : '…')}</>;
}

/**
 * The columns the chooser adds, in this order (their keys are the export's `columns`). A new one is one entry
 * here and, for the export, one in DOMAIN_OPTIONAL_COLUMNS.
 */
export const OPTIONAL_DOMAIN_COLUMNS: OptionalColumn<DomainListItem>[] = [
  {
    key: 'server',
    label: 'Server',
    header: 'Server',
    render: (d) => (d.server ? serverLabel(d.server) : ''),
  },
  { key: 'brand', label: 'Brand', header: 'Brand', render: (d) => d.brand?.name ?? '' },
  {
    key: 'cloud',
    label: 'Cloud and zone',
    header: 'Cloud',
    render: (d) =>
      d.cloud ? (
        <>
          {d.cloud.email}
          {d.cloudZoneId && (
            <div className="small text-body-secondary font-monospace" title="Cloud Zone Id">
              {d.cloudZoneId}
            </div>
          )}
        </>
      ) : (
        ''
      ),
  },
  {
    key: 'registrator',
    label: 'Domain Registrator',
    header: 'Registrator',
    render: (d) => d.domainRegistrator?.name ?? '',
  },
  {
    key: 'yandexAccount',
    label: 'Yandex Webmaster Account',
    header: 'Yandex Account',
    render: (d) => (d.yandexWebmasterAccountId ? <YandexAccountName id={d.yandexWebmasterAccountId} /> : ''),
  },
];

export function DomainListPage() {
  const filters = useDomainFilters();
  const columnChoice = useColumnChoice('domains', OPTIONAL_DOMAIN_COLUMNS);
  // The chosen columns go before Status, which stays last as in the spec.
  const shownColumns = [...columns.slice(0, -1), ...columnChoice.shown, ...columns.slice(-1), healthColumn];
  const { search } = useListUrlState();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const checkSelection = useCheckSelection();
  const fixAll = useFixAll();
  // The last Check health started here, shown above the table (not as a toast over the rows) until dismissed.
  const [checkStarted, setCheckStarted] = useState<CheckHealthStarted | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [allMatching, setAllMatching] = useState<{ count: number } | null>(null);
  const [pageIds, setPageIds] = useState<string[]>([]);
  // A new search or filter is a new set of domains: the selection starts again.
  const scope = JSON.stringify([filters.values, search]);
  const [lastScope, setLastScope] = useState(scope);
  if (scope !== lastScope) {
    setLastScope(scope);
    setSelected(new Set());
    setAllMatching(null);
  }

  const isSelected = (d: DomainListItem) => allMatching !== null || selected.has(d._id);
  const toggle = (d: DomainListItem) => {
    const next = new Set(allMatching ? pageIds : selected);
    if (allMatching || next.has(d._id)) next.delete(d._id);
    else next.add(d._id);
    setAllMatching(null);
    setSelected(next);
  };
  const togglePage = () => {
    const everyOne = allMatching !== null || pageIds.every((id) => selected.has(id));
    const next = new Set(allMatching ? [] : selected);
    for (const id of pageIds) {
      if (everyOne) next.delete(id);
      else next.add(id);
    }
    setAllMatching(null);
    setSelected(next);
  };
  const clearSelection = () => {
    setSelected(new Set());
    setAllMatching(null);
  };
  const count = allMatching ? allMatching.count : selected.size;
  const tooMany = !allMatching && selected.size > FLEET_IDS_MAX;
  const selectionSent = (): FleetSelectionSent =>
    allMatching ? { filter: { ...filters.values, ...(search ? { search } : {}) } } : { ids: [...selected] };
  const planChange = () => {
    void navigate(FLEET_NEW_PATH, { state: { selection: selectionSent(), count } satisfies FleetNewState });
  };
  const checkHealth = () =>
    checkSelection.mutate(selectionSent(), {
      onSuccess: (job) => setCheckStarted({ count, jobId: job.jobId, jobNo: job.jobNo }),
    });

  // Filtered to a fixable check's failing domains: "Fix all" plans its fix over exactly the domains listed.
  const values = filters.values;
  const failing = (values.failingCheck ??
    (values.check && values.checkState === 'failing' ? values.check : undefined)) as HealthCheckKey | undefined;
  const fixable = failing && HEALTH_FIX_ALL[failing] ? failing : undefined;
  const fixAllListed = () =>
    fixable &&
    fixAll.mutate(
      { check: fixable, filter: { ...values, ...(search ? { search } : {}) } },
      {
        onSuccess: (plan) => void navigate(fleetPlanPath(plan._id)),
        onError: (error) => void dialogs.apiError(error),
      },
    );

  const exportZones = async () => {
    const selection: FleetSelectionSent = allMatching
      ? { filter: { ...filters.values, ...(search ? { search } : {}) } }
      : { ids: [...selected] };
    try {
      const { jobId } = await api.post<{ jobId: string }>('/api/zone-files/exports', { selection });
      void navigate(zoneExportPath(jobId));
    } catch (error) {
      void dialogs.apiError(error);
    }
  };

  return (
    <ListView
      title="Domains"
      useList={useDomainListView}
      loadFailedText={domainsApi.fallbacks.load}
      columns={shownColumns}
      createLink={{ to: domainPaths.create, label: 'Create Domain' }}
      rowHref={(d) => domainPaths.edit(d._id)}
      csvExport={{
        url: DOMAIN_EXPORT_URL,
        fileName: 'domains.csv',
        // The export holds the columns on screen (the spec's ones and the chosen ones).
        params: { columns: columnChoice.chosen.join(',') || 'none' },
      }}
      extraParams={filterParams(filters.values)}
      filters={<DomainFilterBar {...filters} />}
      selection={{ isSelected, onToggle: toggle, onTogglePage: togglePage, label: (d) => d.domainNameUnicode }}
      actions={
        <>
          <LinkButton to="/launches/new" variant="outline-primary">
            Launch a site
          </LinkButton>
          <Button
            variant="outline-secondary"
            onClick={checkHealth}
            disabled={count === 0 || tooMany || checkSelection.isPending}
            title={checkSelection.error?.message}
          >
            Check health{count > 0 ? ` (${count})` : ''}
          </Button>
          {fixable && (
            <Button
              variant="outline-danger"
              onClick={fixAllListed}
              disabled={fixAll.isPending}
              title="Plan this check's fix over every domain listed: each back to its expected value"
            >
              Fix all: {healthCheckOf(fixable)?.label}
            </Button>
          )}
          <Button variant="outline-primary" onClick={planChange} disabled={count === 0 || tooMany}>
            Plan a fleet change{count > 0 ? ` (${count})` : ''}
          </Button>
          <Button
            variant="outline-secondary"
            onClick={() => void exportZones()}
            disabled={count === 0 || count > ZONE_EXPORT_MAX}
          >
            Export zone files{count > 0 ? ` (${count})` : ''}
          </Button>
        </>
      }
      aboveTable={(data) => (
        <>
          {checkStarted && (
            <Suspense fallback={null}>
              <CheckHealthResult started={checkStarted} onClose={() => setCheckStarted(null)} />
            </Suspense>
          )}
          <div className="d-flex flex-wrap align-items-start gap-2">
            <div className="me-auto">
              <SelectionBar
                items={data.items}
                itemsCount={data.itemsCount}
                selected={selected}
                allMatching={allMatching !== null}
                tooMany={tooMany}
                onPageIds={setPageIds}
                onSelectAllMatching={() => setAllMatching({ count: data.itemsCount })}
                onClear={clearSelection}
              />
            </div>
            <ColumnChooser
              options={OPTIONAL_DOMAIN_COLUMNS}
              chosen={columnChoice.chosen}
              onChange={columnChoice.setChosen}
            />
          </div>
        </>
      )}
    />
  );
}

/** What is selected, with "Select all N matching" (the filter, not the ids, is what a plan is sent). */
function SelectionBar(props: {
  items: DomainListItem[];
  itemsCount: number;
  selected: ReadonlySet<string>;
  allMatching: boolean;
  tooMany: boolean;
  onPageIds: (ids: string[]) => void;
  onSelectAllMatching: () => void;
  onClear: () => void;
}) {
  const ids = props.items.map((d) => d._id).join(',');
  const { onPageIds } = props;
  useEffect(() => onPageIds(ids ? ids.split(',') : []), [ids, onPageIds]);
  const n = props.allMatching ? props.itemsCount : props.selected.size;
  if (props.itemsCount === 0) return null;
  return (
    <div className="d-flex flex-wrap align-items-center gap-2 mb-2 small" role="status" aria-label="Selection">
      <span>
        {props.allMatching
          ? `All ${props.itemsCount} matching domains are selected.`
          : n > 0
            ? `${n} selected.`
            : 'Tick domains, or select them all.'}
      </span>
      {!props.allMatching && (
        <Button size="sm" variant="link" className="p-0" onClick={props.onSelectAllMatching}>
          Select all {props.itemsCount} matching
        </Button>
      )}
      {n > 0 && (
        <Button size="sm" variant="link" className="p-0" onClick={props.onClear}>
          Clear selection
        </Button>
      )}
      {props.tooMany && (
        <span className="text-danger">
          At most {FLEET_IDS_MAX} ticked domains; for more, use the filters and select all matching.
        </span>
      )}
    </div>
  );
}
