import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import Form from 'react-bootstrap/Form';
import Table, { type TableProps } from 'react-bootstrap/Table';
import type { ListResult } from '@fleetdesk/contract';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { Pager } from '../../components/pager.tsx';
import { SearchBox } from '../../components/search-box.tsx';
import type { usePlanItemsQuery } from './plans-api.ts';

/** A column of a plan's items: its header, its cell, and its label on a phone's card. */
export type PlanColumn<T> = {
  header: ReactNode;
  cell: (item: T) => ReactNode;
  className?: string;
  headerClassName?: string;
  /** The card's label below 768 px (`data-label`), for tables in the list kit's card layout. */
  label?: string;
};

/**
 * The items of a plan of any kind (decision 084): search, one filter (by outcome or status), the total, the table
 * with the kind's columns, and the pager. The fleet plan, the import and the launch batch pages show theirs here.
 */
export function PlanItems<T extends { seq: number }>(props: {
  /** The section's name for assistive technology ("Domains of the plan"). */
  label: string;
  state: ReturnType<typeof usePlanItemsQuery>;
  query: UseQueryResult<ListResult<T>>;
  filter: { label: string; every: string; options: readonly (readonly [string, string])[]; style?: object };
  columns: PlanColumn<T>[];
  empty: string;
  placeholder?: string;
  table?: TableProps & { 'data-testid'?: string; 'aria-label'?: string };
}) {
  const { state, query, columns } = props;
  return (
    <section aria-label={props.label}>
      <div className="d-flex flex-wrap align-items-center gap-3 mb-3">
        <SearchBox value={state.search} onSearch={state.setSearch} placeholder={props.placeholder} />
        <Form.Select
          aria-label={props.filter.label}
          style={props.filter.style ?? { width: 'auto' }}
          value={state.filter}
          onChange={(e) => state.setFilter(e.currentTarget.value)}
        >
          <option value="">{props.filter.every}</option>
          {props.filter.options.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </Form.Select>
        {query.data && <span className="text-body-secondary small">Total: {query.data.itemsCount}</span>}
      </div>
      {query.isPending ? (
        <LoadingSpinner />
      ) : query.isError ? (
        <ErrorBox onRefresh={() => void query.refetch()} />
      ) : (
        <>
          <Table hover responsive className="align-middle" {...props.table}>
            <thead>
              <tr>
                {columns.map((c, i) => (
                  <th key={i} scope="col" className={c.headerClassName}>
                    {c.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {query.data.items.length === 0 ? (
                <tr>
                  <td colSpan={columns.length} className="text-center text-body-secondary py-4">
                    {props.empty}
                  </td>
                </tr>
              ) : (
                query.data.items.map((it) => (
                  <tr key={it.seq}>
                    {columns.map((c, i) => (
                      <td key={i} className={c.className} data-label={c.label}>
                        {c.cell(it)}
                      </td>
                    ))}
                  </tr>
                ))
              )}
            </tbody>
          </Table>
          <Pager page={state.page} itemsCount={query.data.itemsCount} onPageChange={state.setPage} />
        </>
      )}
    </section>
  );
}
