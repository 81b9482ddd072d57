import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import type { QueryParams } from '../lib/api-client.ts';
import { errorMessage, withFallback } from '../lib/api-error.ts';
import { exportCsv } from '../lib/csv-export.ts';
import type { Entity, ListParams, UseListHook } from '../lib/resource.ts';
import { useDialogs } from './dialog-host.tsx';
import { LinkButton } from './link-button.tsx';
import { ErrorBox } from './error-box.tsx';
import { ListTable, type Column, type RowSelection } from './list-table.tsx';
import { PageHeader } from './page-header.tsx';
import { LoadingSpinner } from './loading-spinner.tsx';
import { Pager } from './pager.tsx';
import { RefreshButton } from './refresh-button.tsx';
import { SearchBox } from './search-box.tsx';
import { useListUrlState } from './use-list-url-state.ts';
import { useForbiddenDialog } from './use-forbidden-dialog.ts';

export interface InUseColumn<T> {
  /** Query params that request an in-use check; read from the URL (or `extraParams`) and sent to the API. */
  params: readonly string[];
  /** Shown whatever the params (the API marks every item, e.g. DNS templates a launch profile uses). */
  always?: boolean;
  isInUse: (item: T) => boolean | null | undefined;
}

export interface ListViewProps<T extends Entity> {
  title: string;
  useList: UseListHook<T>;
  columns: Column<T>[];
  /** e.g. { to: '/brands/create', label: 'Create Brand' } */
  createLink?: { to: string; label: string };
  /** The edit route of a row. */
  rowHref?: (item: T) => string;
  /** Extra query sent with every list call. */
  extraParams?: QueryParams;
  /** An In Use column, shown only when one of its params has a value (or always, see InUseColumn). */
  inUse?: InUseColumn<T>;
  /** An Export button: GET url?search=…, saved as fileName; `params` are sent with it (e.g. the shown columns). */
  csvExport?: { url: string; fileName: string; params?: QueryParams };
  /** Replaces the "Failed to load data" box. */
  errorView?: (refresh: () => void) => ReactNode;
  /**
   * The second document's screens: the failure box shows the server's message, or this fallback
   * ("Failed to fetch data") when it gave none, instead of "Failed to load data".
   */
  loadFailedText?: string;
  emptyText?: string;
  /** Extra buttons beside Create and Refresh. */
  actions?: ReactNode;
  /** Drops the search box, for lists the server does not search (they filter in other ways). */
  hideSearch?: boolean;
  /** Shown between the header and the table, e.g. filters. */
  filters?: ReactNode;
  /** A checkbox column (see ListTable). */
  selection?: RowSelection<T>;
  /** Shown between the search and the table, with the page's items and total (e.g. a selection bar). */
  aboveTable?: (data: { items: T[]; itemsCount: number }) => ReactNode;
}

/** A paginated, searchable list screen. Paging and search live in the URL. */
export function ListView<T extends Entity>({
  title,
  useList,
  columns,
  createLink,
  rowHref,
  extraParams,
  inUse,
  csvExport,
  errorView,
  loadFailedText,
  emptyText,
  actions,
  hideSearch,
  filters,
  selection,
  aboveTable,
}: ListViewProps<T>) {
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const { page, search, searchParams, setPage, setSearch } = useListUrlState();
  const [exporting, setExporting] = useState(false);

  const inUseParams: QueryParams = {};
  for (const name of inUse?.params ?? []) {
    const value = extraParams?.[name] ?? searchParams.get(name);
    if (value !== null && value !== undefined && value !== '') inUseParams[name] = value;
  }
  const showInUse = Boolean(inUse?.always) || Object.keys(inUseParams).length > 0;
  const params: ListParams = { ...extraParams, ...inUseParams, page, search };
  const query = useList(params);
  useForbiddenDialog(query.error);

  const handleRefresh = () => void query.refetch();

  const handleExport = async () => {
    if (!csvExport) return;
    setExporting(true);
    try {
      // The export takes the same filters as the list (extraParams), beside the search.
      await exportCsv(csvExport.url, {
        ...extraParams,
        ...csvExport.params,
        search,
        fileName: csvExport.fileName,
      });
    } catch (error) {
      void dialogs.apiError(error);
    } finally {
      setExporting(false);
    }
  };

  const noun = title.toLowerCase();
  const empty = search ? (
    <span data-testid="empty-state">
      No {noun} match "{search}".{' '}
      <Button variant="link" className="p-0 align-baseline" onClick={() => setSearch('')}>
        Clear search
      </Button>
    </span>
  ) : (
    (emptyText ?? `No ${noun} found`)
  );

  return (
    <section>
      <PageHeader title={title}>
        {createLink && (
          <LinkButton to={createLink.to} variant="primary">
            {createLink.label}
          </LinkButton>
        )}
        {actions}
        {csvExport && (
          <Button variant="outline-secondary" onClick={() => void handleExport()} disabled={exporting}>
            {exporting && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
            Export
          </Button>
        )}
        <RefreshButton onRefresh={handleRefresh} pending={query.isFetching} />
      </PageHeader>
      {filters}
      <div className="d-flex flex-wrap align-items-center gap-3 mb-3">
        {!hideSearch && <SearchBox value={search} onSearch={setSearch} />}
        {query.data && <span className="text-body-secondary small">Total: {query.data.itemsCount}</span>}
      </div>
      {query.isPending ? (
        <LoadingSpinner />
      ) : query.isError ? (
        errorView ? (
          errorView(handleRefresh)
        ) : (
          <ErrorBox
            message={loadFailedText ? errorMessage(withFallback(query.error, loadFailedText)) : undefined}
            onRefresh={handleRefresh}
          />
        )
      ) : (
        <>
          {aboveTable?.(query.data)}
          <ListTable
            items={query.data.items}
            columns={columns}
            page={page}
            rowHref={rowHref}
            onRowClick={rowHref ? (item) => void navigate(rowHref(item)) : undefined}
            isInUse={showInUse ? inUse?.isInUse : undefined}
            emptyText={empty}
            label={title}
            selection={selection}
          />
          <Pager page={page} itemsCount={query.data.itemsCount} onPageChange={setPage} />
        </>
      )}
    </section>
  );
}
