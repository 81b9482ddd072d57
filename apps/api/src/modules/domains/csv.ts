/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled. */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line, CRLF-terminated. */
export const csvLine = (values: readonly (string | number | boolean | null | undefined)[]) =>
  `${values.map(csvField).join(',')}\r\n`;
