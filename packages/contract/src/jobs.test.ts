import { describe, expect, it } from 'vitest';
import { jobName, jobOwner } from './jobs.ts';

const ID = '0b7c8f3e-1d2a-4c5b-9e8f-7a6b5c4d3e2f';

describe('jobOwner and jobName', () => {
  it("names a job that does a plan's work by the plan, and leads to its page (issue 47)", () => {
    expect(jobOwner('fleet.run', { planId: ID, planNo: 3 })).toEqual({
      kind: 'plan',
      id: ID,
      name: 'Fleet plan #3',
      path: `/fleet/${ID}`,
    });
    expect(jobName({ kind: 'fleet.run', payload: { planId: ID, planNo: 3 }, jobNo: 109 })).toBe('Fleet plan #3');
    expect(jobName({ kind: 'imports.plan', payload: { planId: ID, planNo: 4 }, jobNo: 7 })).toBe('Import #4');
    expect(jobOwner('launches.batch-run', { batchId: ID, batchNo: 2 })?.path).toBe(`/launches/batches/${ID}`);
    expect(jobName({ kind: 'launches.run', payload: { launchId: ID, launchNo: 5 }, jobNo: 8 })).toBe('Launch #5');
  });

  it('names any other job, and one queued before its payload carried the number, by its own number', () => {
    expect(jobName({ kind: 'domains.parsing', payload: {}, jobNo: 12 })).toBe('Job #12');
    expect(jobName({ kind: 'fleet.run', payload: { planId: ID }, jobNo: 109 })).toBe('Job #109');
    expect(jobOwner('fleet.run', { planId: ID })?.path).toBe(`/fleet/${ID}`);
    expect(jobOwner('fleet.run', {})).toBeNull();
  });
});
