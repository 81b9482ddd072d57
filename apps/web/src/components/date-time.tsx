import { EXPIRING_WITHIN_DAYS } from '@fleetdesk/contract';
import { EMPTY } from '../lib/format.ts';

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Always the day and the time, short and in one format: "Today 14:05", "Nov 22, 23:58" this year, "Jan 3, 2025,
 * 01:00" another year (a token's expiry and its last use read alike in one table; the full timestamp is on hover).
 */
export function shortDateTime(value: Date, now = new Date()): string {
  const time = `${pad(value.getHours())}:${pad(value.getMinutes())}`;
  if (value.toDateString() === now.toDateString()) return `Today ${time}`;
  const day = value.toLocaleDateString('en-US', { month: 'short', day: 'numeric' });
  if (value.getFullYear() === now.getFullYear()) return `${day}, ${time}`;
  return `${day}, ${value.getFullYear()}, ${time}`;
}

/** A date-time shown short, with the full local date and time on hover (and to screen readers via title). */
export function DateTime({ value, className }: { value: string | null | undefined; className?: string }) {
  if (!value) return <span className={className}>{EMPTY}</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span className={className}>{value}</span>;
  return (
    <time
      dateTime={date.toISOString()}
      title={date.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'long' })}
      className={`text-nowrap ${className ?? ''}`}
    >
      {shortDateTime(date)}
    </time>
  );
}

const todayIso = () => {
  const d = new Date();
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
};

/** A calendar day in the operator's locale, read without a time zone shift. */
export function localDay(value: string): string {
  const [y, m, d] = value.split('-').map(Number);
  if (!y || !m || !d) return value;
  return new Date(y, m - 1, d).toLocaleDateString();
}

/** Whole days from `from` to `to` (both YYYY-MM-DD). */
export const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

export type ExpiryState = 'expired' | 'soon' | 'ok';
export function expiryState(day: string, today: string): ExpiryState {
  const left = daysBetween(today, day);
  if (left < 0) return 'expired';
  return left <= EXPIRING_WITHIN_DAYS ? 'soon' : 'ok';
}

/**
 * A registration's end (a calendar day, YYYY-MM-DD), marked when it is past or within 30 days; the hover
 * says how many days are left.
 */
export function ExpiryDate({ value, today }: { value: string | null | undefined; today?: string }) {
  if (!value) return null;
  const t = today ?? todayIso();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return <span>{value}</span>;
  const state = expiryState(value, t);
  const left = daysBetween(t, value);
  const hint =
    state === 'expired'
      ? `Expired ${-left} day${left === -1 ? '' : 's'} ago`
      : left === 0
        ? 'Expires today'
        : `${left} day${left === 1 ? '' : 's'} left`;
  return (
    <time dateTime={value} title={hint} className={`text-nowrap fd-expiry fd-expiry-${state}`} data-expiry={state}>
      {localDay(value)}
      {state !== 'ok' && <span className="visually-hidden"> ({hint})</span>}
    </time>
  );
}
