import { describe, expect, it } from 'vitest';
import { healthProblemSummary } from './health-checks.ts';

describe('healthProblemSummary', () => {
  it('says each number for what it is, worst first', () => {
    const states = ['unknown', 'failing', 'ok', 'failing', 'warning', 'failing', 'unknown', 'failing', 'na'] as const;
    expect(healthProblemSummary(states)).toBe('4 failing · 1 warning · 2 unknown');
    expect(healthProblemSummary(['ok', 'na'])).toBe('');
    expect(healthProblemSummary(['warning'])).toBe('1 warning');
  });
});
