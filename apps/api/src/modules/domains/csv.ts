/** The UTF-8 byte order mark: spreadsheet programs read the file as UTF-8 only when it starts with one. */
export const CSV_BOM = '\uFEFF';

/**
 * A cell that a spreadsheet would read as a formula (OWASP "CSV injection"): it begins with =, +, -, @, a tab
 * or a carriage return. Such a cell gets a leading single quote, so it shows as text and never runs.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180): a formula-like text cell neutralised, then quoted when it holds a comma, a quote
 * or a line break, quotes doubled. Numbers are written as they are (a negative number is not text).
 */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let s = String(value);
  if (typeof value === 'string' && FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line, CRLF-terminated. */
export const csvLine = (values: readonly (string | number | boolean | null | undefined)[]) =>
  `${values.map(csvField).join(',')}\r\n`;
