import { describe, expect, it } from 'vitest';
import { JOB_KINDS } from './jobs.ts';
import { jobSentence } from './outcomes.ts';

describe('jobSentence', () => {
  it('says what every kind of job did in its own words, never a bare "Done"', () => {
    for (const kind of JOB_KINDS) {
      if (kind === 'fleet.run') continue; // its words come from the tally
      expect(jobSentence({ kind, state: 'completed', result: {}, error: null }), kind).not.toBe('Done');
    }
  });

  it('counts imports, zone files and health checks', () => {
    const s = (kind: string, result: Record<string, unknown>) =>
      jobSentence({ kind, state: 'completed', result, error: null });
    expect(s('imports.plan', { names: 12 })).toBe('12 names read: see the import');
    expect(s('imports.run', { total: 6, done: 5, failed: 1, skipped: 0, pending: 0 })).toBe(
      '5 of 6 names imported, 1 failed: see the import',
    );
    expect(s('zone-files.export', { zones: 4, bytes: 2025, fileName: 'z.zip', failedCount: 1 })).toBe(
      '4 zone files in z.zip (2.0 KB), 1 zone not read',
    );
    expect(s('health.check', { domains: 3, checked: 2, gone: 1 })).toBe('2 domains checked, 1 gone meanwhile');
    expect(s('health.cycle', { message: 'Whole fleet (70 domains) checked every 24 hours' })).toBe(
      'Whole fleet (70 domains) checked every 24 hours',
    );
  });
});
