import type { KeyboardEvent, MouseEvent, ReactNode } from 'react';
import { Link } from 'react-router';
import Table from 'react-bootstrap/Table';
import type { Entity } from '../lib/resource.ts';
import { InUseIcon } from './in-use-icon.tsx';
import { rowNumber } from './pager-logic.ts';

export interface Column<T> {
  header: ReactNode;
  render: (item: T) => ReactNode;
  /** React key; defaults to the header text. */
  key?: string;
  className?: string;
  /** Header width, e.g. '6rem'. */
  width?: string;
}

export interface ListTableProps<T extends Entity> {
  items: T[];
  columns: Column<T>[];
  page: number;
  /** Where a row leads (its edit route). */
  rowHref?: (item: T) => string;
  onRowClick?: (item: T) => void;
  /** When set, an In Use column shows the icon for items it flags. */
  isInUse?: (item: T) => boolean | null | undefined;
  emptyText?: string;
  /** When set, a checkbox column leads the rows, with a header checkbox for the whole page. */
  selection?: RowSelection<T>;
}

export interface RowSelection<T> {
  isSelected: (item: T) => boolean;
  onToggle: (item: T) => void;
  /** The header checkbox: selects (or clears) every row of the page. */
  onTogglePage: () => void;
  /** Names the row in the checkbox's accessible label. */
  label: (item: T) => string;
}

/** The list table: "#" (index + 1 + (page - 1) * 20), the feature's columns, and an optional In Use column. */
export function ListTable<T extends Entity>({
  items,
  columns,
  page,
  rowHref,
  onRowClick,
  isInUse,
  emptyText = 'No items found',
  selection,
}: ListTableProps<T>) {
  const clickable = Boolean(onRowClick);
  const handleClick = (event: MouseEvent, item: T) => {
    // A click on the row's own link or a button inside the row does its own thing.
    if ((event.target as HTMLElement).closest('a, button')) return;
    onRowClick?.(item);
  };
  const handleKeyDown = (event: KeyboardEvent, item: T) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    if ((event.target as HTMLElement).closest('a, button')) return;
    event.preventDefault();
    onRowClick?.(item);
  };
  const colSpan = columns.length + 1 + (isInUse ? 1 : 0) + (selection ? 1 : 0);
  const pageSelected = selection ? items.filter(selection.isSelected).length : 0;
  return (
    <Table hover responsive className="align-middle">
      <thead>
        <tr>
          {selection && (
            <th scope="col" style={{ width: '2.5rem' }}>
              <input
                type="checkbox"
                className="form-check-input"
                aria-label="Select all on this page"
                checked={items.length > 0 && pageSelected === items.length}
                ref={(el) => {
                  if (el) el.indeterminate = pageSelected > 0 && pageSelected < items.length;
                }}
                disabled={items.length === 0}
                onChange={selection.onTogglePage}
              />
            </th>
          )}
          <th scope="col" style={{ width: '4rem' }}>
            #
          </th>
          {columns.map((column, i) => (
            <th
              scope="col"
              key={column.key ?? (typeof column.header === 'string' ? column.header : i)}
              style={column.width ? { width: column.width } : undefined}
            >
              {column.header}
            </th>
          ))}
          {isInUse && (
            <th scope="col" className="text-center" style={{ width: '6rem' }}>
              In Use
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {items.length === 0 ? (
          <tr>
            <td colSpan={colSpan} className="text-center text-body-secondary py-4">
              {emptyText}
            </td>
          </tr>
        ) : (
          items.map((item, index) => (
            <tr
              key={item._id}
              onClick={clickable ? (event) => handleClick(event, item) : undefined}
              onKeyDown={clickable && !rowHref ? (event) => handleKeyDown(event, item) : undefined}
              tabIndex={clickable && !rowHref ? 0 : undefined}
              style={clickable ? { cursor: 'pointer' } : undefined}
            >
              {selection && (
                <td onClick={(event) => event.stopPropagation()}>
                  <input
                    type="checkbox"
                    className="form-check-input"
                    aria-label={`Select ${selection.label(item)}`}
                    checked={selection.isSelected(item)}
                    onChange={() => selection.onToggle(item)}
                  />
                </td>
              )}
              <td>{rowHref ? <Link to={rowHref(item)}>{rowNumber(index, page)}</Link> : rowNumber(index, page)}</td>
              {columns.map((column, i) => (
                <td
                  key={column.key ?? (typeof column.header === 'string' ? column.header : i)}
                  className={column.className}
                >
                  {column.render(item)}
                </td>
              ))}
              {isInUse && <td className="text-center">{isInUse(item) ? <InUseIcon /> : null}</td>}
            </tr>
          ))
        )}
      </tbody>
    </Table>
  );
}
