import { PAGE_SIZE, PAGER_MAX_PAGES } from '@fleetdesk/contract';

/** Number of pages for a count; at least 1 so an empty list still has page 1. */
export function totalPages(itemsCount: number, pageSize = PAGE_SIZE): number {
  return Math.max(1, Math.ceil(Math.max(0, itemsCount) / pageSize));
}

/** The page numbers to show: at most `max`, around the current page, within 1..total. */
export function pageWindow(current: number, total: number, max = PAGER_MAX_PAGES): number[] {
  const last = Math.max(1, Math.floor(total));
  const size = Math.min(Math.max(1, Math.floor(max)), last);
  const page = Math.min(Math.max(1, Math.floor(current)), last);
  let start = page - Math.floor(size / 2);
  start = Math.max(1, Math.min(start, last - size + 1));
  return Array.from({ length: size }, (_, i) => start + i);
}

/** The go-to box target: only numbers above 0 act; anything past the end goes to the last page. */
export function goToPageTarget(input: string | number, total: number): number | null {
  const value = typeof input === 'number' ? input : Number(String(input).trim());
  if (typeof input === 'string' && input.trim() === '') return null;
  if (!Number.isFinite(value) || value <= 0) return null;
  const page = Math.floor(value);
  if (page < 1) return null;
  return Math.min(page, Math.max(1, Math.floor(total)));
}

/** Row numbering: index + 1 + (page - 1) * page size. */
export function rowNumber(index: number, page: number, pageSize = PAGE_SIZE): number {
  return index + 1 + (page - 1) * pageSize;
}

/** A page from the URL: a whole number of at least 1, else 1. */
export function parsePage(value: string | null | undefined): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}
