import { isValidElement, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
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
  /**
   * The row's main name, shown as the link into the row (and as the card's title on a phone). Without one
   * marked, the kit picks the first name-like column (see mainColumnIndex).
   */
  primary?: boolean;
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
  emptyText?: ReactNode;
  /** An accessible name for the table. */
  label?: string;
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

/** Headers that name a row, in order of preference, when no column is marked primary. */
const NAME_HEADERS = ['Domain Name', 'Username', 'Name', 'Email', 'IP Address', 'Job'];
const NUMBER_HEADERS = ['№', '#', ''];

/** The two number columns say what they count: unfiltered, the first page shows the same numbers in both. */
export const ROW_NUMBER_HINT = 'Row on this page';
export const RECORD_NUMBER_HINT = "The record's own number: it stays the same whatever the page, search or filter";

/** The column holding the row's name: the marked one, else the first name-like header, else the first non-number. */
export function mainColumnIndex(columns: readonly Pick<Column<unknown>, 'header' | 'primary'>[]): number {
  const marked = columns.findIndex((c) => c.primary);
  if (marked >= 0) return marked;
  for (const name of NAME_HEADERS) {
    const i = columns.findIndex((c) => c.header === name);
    if (i >= 0) return i;
  }
  return columns.findIndex((c) => typeof c.header !== 'string' || !NUMBER_HEADERS.includes(c.header));
}

const headerText = (header: ReactNode, key?: string) =>
  typeof header === 'string' ? header : typeof header === 'number' ? String(header) : (key ?? '');

/**
 * The list table: "#" (index + 1 + (page - 1) * 20), the feature's columns, and an optional In Use column.
 * The row's name is a link and the whole row opens it. Below 768 px each row becomes a card that shows every
 * column with its header as the label (docs/decisions/032): nothing is cut off and nothing scrolls sideways.
 */
export function ListTable<T extends Entity>({
  items,
  columns,
  page,
  rowHref,
  onRowClick,
  isInUse,
  emptyText = 'No items found',
  label,
  selection,
}: ListTableProps<T>) {
  const clickable = Boolean(onRowClick);
  const main = mainColumnIndex(columns as Column<unknown>[]);
  const handleClick = (event: MouseEvent, item: T) => {
    // A click on the row's own link, a button or a form control inside the row does its own thing.
    if ((event.target as HTMLElement).closest('a, button, input, select, label, textarea')) return;
    // Selecting text is not a click.
    if (window.getSelection()?.toString()) return;
    onRowClick?.(item);
  };
  const handleKeyDown = (event: KeyboardEvent, item: T) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    if ((event.target as HTMLElement).closest('a, button, input, select, label, textarea')) return;
    event.preventDefault();
    onRowClick?.(item);
  };
  const cell = (column: Column<T>, index: number, item: T) => {
    const content = column.render(item);
    // The name becomes the link into the row, unless the feature already made it one (or something richer).
    if (
      index === main &&
      rowHref &&
      !isValidElement(content) &&
      content !== null &&
      content !== '' &&
      content !== undefined
    )
      return (
        <Link to={rowHref(item)} className="fd-row-link">
          {content}
        </Link>
      );
    return content;
  };
  // A phone card shows one number: the record's own (№) where the list has one, else the row's (#) (issue 47).
  const recordNo = columns.some((c) => c.header === '№');
  const colSpan = columns.length + 1 + (isInUse ? 1 : 0) + (selection ? 1 : 0);
  const pageSelected = selection ? items.filter(selection.isSelected).length : 0;
  return (
    <Table hover responsive className="align-middle fd-list-table" aria-label={label}>
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
          <th scope="col" style={{ width: '4rem' }} title={ROW_NUMBER_HINT} className="fd-hint">
            #
          </th>
          {columns.map((column, i) => (
            <th
              scope="col"
              key={column.key ?? (typeof column.header === 'string' ? column.header : i)}
              style={column.width ? { width: column.width } : undefined}
              title={column.header === '№' ? RECORD_NUMBER_HINT : undefined}
              className={column.header === '№' ? 'fd-hint' : undefined}
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
          <tr className="fd-empty-row">
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
              className={clickable ? 'fd-clickable' : undefined}
            >
              {selection && (
                <td className="fd-cell-select" onClick={(event) => event.stopPropagation()}>
                  <input
                    type="checkbox"
                    className="form-check-input"
                    aria-label={`Select ${selection.label(item)}`}
                    checked={selection.isSelected(item)}
                    onChange={() => selection.onToggle(item)}
                  />
                </td>
              )}
              <td data-label="#" className={recordNo ? 'fd-cell-no d-none d-md-table-cell' : 'fd-cell-no'}>
                {rowHref ? <Link to={rowHref(item)}>{rowNumber(index, page)}</Link> : rowNumber(index, page)}
              </td>
              {columns.map((column, i) => (
                <td
                  key={column.key ?? (typeof column.header === 'string' ? column.header : i)}
                  className={
                    [column.className, i === main ? 'fd-cell-main' : undefined].filter(Boolean).join(' ') || undefined
                  }
                  data-label={headerText(column.header, column.key)}
                >
                  {cell(column, i, item)}
                </td>
              ))}
              {isInUse && (
                <td className="text-center" data-label="In Use">
                  {isInUse(item) ? <InUseIcon /> : null}
                </td>
              )}
            </tr>
          ))
        )}
      </tbody>
    </Table>
  );
}
