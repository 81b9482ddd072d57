import { describe, expect, it } from 'vitest';
import { healthCountsOfMarks, healthCountsText, healthProblemSummary } from './health-checks.ts';

describe('healthProblemSummary', () => {
  it('says each number for what it is, worst first', () => {
    const states = ['unknown', 'failing', 'ok', 'failing', 'warning', 'failing', 'unknown', 'failing', 'na'] as const;
    expect(healthProblemSummary(states)).toBe('4 failing · 1 warning · 2 unknown');
    expect(healthProblemSummary(['ok', 'na'])).toBe('');
    expect(healthProblemSummary(['warning'])).toBe('1 warning');
  });
});

describe('healthCountsOfMarks and healthCountsText (the domains list)', () => {
  it("counts a domain's stored marks by state and says each number apart, never one sum", () => {
    const marks = [
      'cf_ssl:failing',
      'cf_tls13:failing',
      'cf_waf:failing',
      'registrar_ns:failing',
      'cf_zone:warning',
      'server:unknown',
      'site_https:unknown',
      'cf_dns:ok',
      'yandex_host:na',
    ];
    const c = healthCountsOfMarks(marks);
    expect(c).toEqual({ failing: 4, warning: 1, unknown: 2 });
    expect(healthCountsText(c)).toBe('4 failing · 1 warning · 2 unknown');
    expect(healthCountsText(healthCountsOfMarks(['cf_ssl:ok', 'server:na']))).toBe('');
    expect(healthCountsText(healthCountsOfMarks(['server:unknown']))).toBe('1 unknown');
  });
});
