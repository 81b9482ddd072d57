import { describe, expect, it } from 'vitest';
import {
  EMPTY,
  formatBandwidth,
  formatBytes,
  formatCompact,
  formatDateTime,
  formatNumber,
  formatText,
  formatYesNo,
} from './format.ts';

describe('format', () => {
  it('formats booleans as Yes/No', () => {
    expect(formatYesNo(true)).toBe('Yes');
    expect(formatYesNo(false)).toBe('No');
    expect(formatYesNo(undefined)).toBe('No');
  });

  it('shows a dash for missing values', () => {
    expect(formatText(null)).toBe(EMPTY);
    expect(formatText('')).toBe(EMPTY);
    expect(formatText(0)).toBe('0');
    expect(formatNumber(undefined)).toBe(EMPTY);
    expect(formatNumber(12345)).toBe('12,345');
    expect(formatDateTime(null)).toBe(EMPTY);
    expect(formatDateTime('not a date')).toBe('not a date');
    expect(formatDateTime('2026-01-02T03:04:00')).toBe('2026-01-02 03:04');
  });

  it('formats byte counts in human units', () => {
    expect(formatBytes(null)).toBe(EMPTY);
    expect(formatBytes(undefined)).toBe(EMPTY);
    expect(formatBytes(-1)).toBe(EMPTY);
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(12.4 * 1024 ** 3)).toBe('12.4 GB');
    expect(formatBytes(1024 ** 2 - 1)).toBe('1.0 MB');
    expect(formatBytes(3 * 1024 ** 4)).toBe('3.0 TB');
  });
});

describe('formatCompact', () => {
  it('keeps an axis label short', () => {
    expect([999, 1234, 12_345, 56_000, 1_200_000].map(formatCompact)).toEqual(['999', '1.2k', '12k', '56k', '1.2M']);
  });
});

describe('formatBandwidth', () => {
  it('counts bytes sent in decimal units, to three significant digits', () => {
    expect(formatBandwidth(null)).toBe(EMPTY);
    expect(formatBandwidth(-1)).toBe(EMPTY);
    expect([0, 999, 1000, 12_500, 250_000_000, 1_234_567_890, 2_500_000_000, 7.5e12].map(formatBandwidth)).toEqual([
      '0 B',
      '999 B',
      '1 kB',
      '12.5 kB',
      '250 MB',
      '1.23 GB',
      '2.5 GB',
      '7.5 TB',
    ]);
  });
  it('carries a figure that rounds to 1000 into the next unit', () => {
    expect(formatBandwidth(999_999)).toBe('1 MB');
    expect(formatBandwidth(999_600_000)).toBe('1 GB');
  });
});
