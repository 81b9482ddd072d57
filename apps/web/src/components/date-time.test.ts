import { describe, expect, it } from 'vitest';
import { daysBetween, expiryState, shortDateTime } from './date-time.tsx';

describe('shortDateTime', () => {
  const now = new Date(2026, 10, 23, 18, 0);
  it('always says the day and the time in one format: today, month and day, with the year another year', () => {
    expect(shortDateTime(new Date(2026, 10, 23, 9, 5), now)).toBe('Today 09:05');
    expect(shortDateTime(new Date(2026, 10, 22, 23, 58), now)).toBe('Nov 22, 23:58');
    expect(shortDateTime(new Date(2025, 0, 3, 1, 0), now)).toBe('Jan 3, 2025, 01:00');
    expect(shortDateTime(new Date(2027, 1, 25, 22, 4), now)).toBe('Feb 25, 2027, 22:04');
  });
});

describe('expiryState', () => {
  it('marks past days expired and the next 30 days soon', () => {
    expect(daysBetween('2026-01-31', '2026-03-02')).toBe(30);
    expect(expiryState('2026-01-30', '2026-01-31')).toBe('expired');
    expect(expiryState('2026-01-31', '2026-01-31')).toBe('soon');
    expect(expiryState('2026-03-02', '2026-01-31')).toBe('soon');
    expect(expiryState('2026-03-03', '2026-01-31')).toBe('ok');
  });
});
