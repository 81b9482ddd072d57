export const EMPTY = '—';

export function formatYesNo(value: boolean | null | undefined): string {
  return value ? 'Yes' : 'No';
}

export function formatText(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return EMPTY;
  return String(value);
}

export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return EMPTY;
  return value.toLocaleString('en-US');
}

/** An ISO date-time as "YYYY-MM-DD HH:MM" in local time. */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return EMPTY;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** An ISO date-time in the operator's own locale and time zone. */
export function formatLocalDateTime(value: string | null | undefined, locale?: string): string {
  if (!value) return EMPTY;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toLocaleString(locale);
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

/** A byte count in human units (powers of 1024, as `df -h` counts): "512 B", "12.4 GB". */
export function formatBytes(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value) || value < 0) return EMPTY;
  let unit = 0;
  let scaled = value;
  while (scaled >= 1024 && unit < BYTE_UNITS.length - 1) {
    scaled /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${Math.round(scaled)} B`;
  // 1023.96 KB would print as "1024.0 KB": carry it into the next unit.
  if (Number(scaled.toFixed(1)) >= 1024 && unit < BYTE_UNITS.length - 1) return `1.0 ${BYTE_UNITS[unit + 1]}`;
  return `${scaled.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

const DECIMAL_BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'] as const;

/**
 * Bytes sent over the network in decimal units (1 kB = 1,000 B), as traffic is counted, to three significant digits:
 * "512 B", "12.5 kB", "250 MB", "1.23 GB". A chart's ticks (1, 2, 2.5, 5 × 10ⁿ) read as round figures.
 */
export function formatBandwidth(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value) || value < 0) return EMPTY;
  let unit = 0;
  let scaled = value;
  while (scaled >= 1000 && unit < DECIMAL_BYTE_UNITS.length - 1) {
    scaled /= 1000;
    unit += 1;
  }
  if (unit === 0) return `${Math.round(scaled)} B`;
  let shown = Number(scaled.toPrecision(3));
  // 999.96 kB would print as "1000 kB": carry it into the next unit.
  if (shown >= 1000 && unit < DECIMAL_BYTE_UNITS.length - 1) {
    shown = 1;
    unit += 1;
  }
  return `${shown} ${DECIMAL_BYTE_UNITS[unit]}`;
}

/** 12,345 → "12.3k", 56,000 → "56k", 1,200,000 → "1.2M": a chart's axis stays narrow on a phone. */
export function formatCompact(n: number): string {
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${+(n / 1e3).toFixed(0)}k`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return String(n);
}
