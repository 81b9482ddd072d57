import { describe, expect, it } from 'vitest';
import { FLEET_ITEM_STATUSES } from './fleet.ts';
import { IMPORT_ITEM_STATUSES } from './imports.ts';
import { JOB_KINDS } from './jobs.ts';
import { LAUNCH_ROW_STATUSES } from './launches.ts';
import {
  PLAN_ITEM_BUCKETS,
  PLAN_KINDS,
  countEnded,
  jobSentence,
  planStateOf,
  planTallyOf,
  stateText,
  tallyText,
  type PlanKind,
} from './outcomes.ts';

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
    // A parse and a copy carry a tally for their end state, and still say URLs and files, not domains.
    const tally = { total: 5, changed: 4, same: 0, skipped: 0, failed: 1 };
    expect(s('domains.parsing', { pagesDone: 3, assets: 1, bytes: 2048, errors: 1, tally })).toBe(
      '3 pages and 1 requisite saved (2.0 KB), 1 URL failed',
    );
    expect(
      s('domains.copy-content-files', { files: 4, directories: 2, bytes: 10, failed: [{ path: 'a' }], tally }),
    ).toBe('4 files and 2 directories copied (10 B), 1 file failed');
    expect(
      jobSentence({
        kind: 'fleet.run',
        state: 'completed_with_failures',
        error: null,
        result: {
          tally: { total: 3, changed: 3, same: 0, skipped: 0, failed: 0, stillFailing: 2 },
        },
      }),
    ).toBe('3 of 3 domains changed (2 still failing)');
    expect(s('health.cycle', { message: 'Whole fleet (70 domains) checked every 24 hours' })).toBe(
      'Whole fleet (70 domains) checked every 24 hours',
    );
  });

  it("ends the job's own sentence with its IndexNow submission, whatever it answered (decision 075)", () => {
    const indexNow = (ok: boolean, message: string) => ({
      indexNow: { ok, message, host: 'a.example', what: '', urls: 0, sample: [], answers: [] },
    });
    const sentence = (result: Record<string, unknown>, state = 'completed') =>
      jobSentence({ kind: 'domains.generate-sitemap', state, result, error: null });
    const base = { urlCount: 3, files: ['sitemap.xml'] };
    expect(sentence({ ...base, ...indexNow(true, 'IndexNow: 4 URLs submitted (200 received)') })).toBe(
      '3 URLs in sitemap.xml · IndexNow: 4 URLs submitted (200 received)',
    );
    expect(sentence({ ...base, ...indexNow(false, 'IndexNow: refused (403 key not valid)') })).toBe(
      '3 URLs in sitemap.xml · IndexNow: refused (403 key not valid)',
    );
    expect(sentence(base)).toBe('3 URLs in sitemap.xml');
    // Not a submission's shape: left out.
    expect(sentence({ ...base, indexNow: { message: 42 } })).toBe('3 URLs in sitemap.xml');
    expect(sentence({ ...base, ...indexNow(true, 'x') }, 'running')).toBe('');
  });
});

describe('one rule for every kind of plan (fleet runs, health fixes, imports, launch batches)', () => {
  const cases: {
    name: string;
    kind: PlanKind;
    counts: [string, number][];
    state: string;
    text: string;
    tally: string;
  }[] = [
    {
      name: 'a fleet run where every domain failed',
      kind: 'fleet',
      counts: [['failed', 6]],
      state: 'failed',
      text: 'Failed: 6 of 6 failed',
      tally: '0 of 6 domains changed · 6 failed',
    },
    {
      name: 'a health fix (a fleet run) that changed some and failed others',
      kind: 'fleet',
      counts: [
        ['done', 3],
        ['failed', 3],
      ],
      state: 'completed_with_failures',
      text: 'Completed with failures: 3 of 6 failed',
      tally: '3 of 6 domains changed · 3 failed',
    },
    {
      name: 'a health fix that changed every domain, two of them still failing the check: changed, never green',
      kind: 'fleet',
      counts: [
        ['done', 1],
        ['changed_failing', 2],
      ],
      state: 'completed_with_failures',
      text: 'Completed with failures: 2 of 3 changed but still failing',
      tally: '3 of 3 domains changed (2 still failing)',
    },
    {
      name: 'a health fix with a failure and a change still failing',
      kind: 'fleet',
      counts: [
        ['changed_failing', 1],
        ['failed', 1],
      ],
      state: 'completed_with_failures',
      text: 'Completed with failures: 1 of 2 failed, 1 changed but still failing',
      tally: '1 of 2 domains changed (1 still failing) · 1 failed',
    },
    {
      name: 'a fleet run with a domain still being worked on',
      kind: 'fleet',
      counts: [
        ['done', 2],
        ['running', 1],
      ],
      state: 'running',
      text: 'Running',
      tally: '2 of 3 domains changed',
    },
    {
      name: 'an import with a failed name',
      kind: 'imports',
      counts: [
        ['done', 4],
        ['skipped', 1],
        ['failed', 1],
      ],
      state: 'completed_with_failures',
      text: 'Completed with failures: 1 of 6 failed',
      tally: '4 of 6 domains changed · 1 skipped · 1 failed',
    },
    {
      name: 'an import that wrote nothing',
      kind: 'imports',
      counts: [['failed', 2]],
      state: 'failed',
      text: 'Failed: 2 of 2 failed',
      tally: '0 of 2 domains changed · 2 failed',
    },
    {
      name: 'a launch batch with rows waiting for confirmation: never "Completed"',
      kind: 'launches',
      counts: [
        ['done', 1],
        ['needs_confirmation', 4],
      ],
      state: 'waiting_for_confirmation',
      text: 'Waiting for confirmation (4)',
      tally: '1 of 5 domains changed · 4 waiting for confirmation',
    },
    {
      name: 'a launch batch all launched, one blocked at the plan',
      kind: 'launches',
      counts: [
        ['done', 4],
        ['blocked', 1],
      ],
      state: 'completed',
      text: 'Completed',
      tally: '4 of 5 domains changed · 1 skipped',
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const t = planTallyOf(c.kind, c.counts);
      const state = planStateOf(t);
      expect(state).toBe(c.state);
      expect(stateText(state, t)).toBe(c.text);
      expect(tallyText(t)).toBe(c.tally);
    });

  it("maps every status of every kind's items (an unknown one is refused)", () => {
    const statuses: Record<PlanKind, readonly string[]> = {
      fleet: FLEET_ITEM_STATUSES,
      imports: IMPORT_ITEM_STATUSES,
      launches: LAUNCH_ROW_STATUSES,
    };
    for (const kind of PLAN_KINDS) {
      expect(Object.keys(PLAN_ITEM_BUCKETS[kind]).sort(), kind).toEqual([...statuses[kind]].sort());
      expect(() => planTallyOf(kind, [['bogus', 1]])).toThrow();
    }
  });

  it('moves a running tally item by item to what the items would count at the end', () => {
    for (const kind of PLAN_KINDS) {
      const ended = Object.keys(PLAN_ITEM_BUCKETS[kind]).filter((s) => PLAN_ITEM_BUCKETS[kind][s] !== 'pending');
      const start = planTallyOf(kind, [['pending', ended.length]]);
      for (const status of ended) countEnded(start, kind, status);
      const end = planTallyOf(
        kind,
        ended.map((s) => [s, 1] as const),
      );
      expect({ ...start, stillFailing: start.stillFailing ?? 0 }, kind).toEqual({
        ...end,
        stillFailing: end.stillFailing ?? 0,
      });
      expect(() => countEnded(start, kind, 'bogus')).toThrow();
    }
  });
});
