import { afterEach, describe, expect, it, vi } from 'vitest';
import { runsInOtherCiStep } from './ci-step.ts';

describe('runsInOtherCiStep', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('runs every file without CI_STEP, CI or not', () => {
    vi.stubEnv('CI_STEP', '');
    vi.stubEnv('CI', 'true');
    expect(runsInOtherCiStep('a.test.ts', 'postgres')).toBe(false);
    expect(runsInOtherCiStep('a.test.ts', 'pglite')).toBe(false);
  });

  it('skips a file in the run it does not belong to, and says so', () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    vi.stubEnv('CI_STEP', 'pglite');
    expect(runsInOtherCiStep('a.test.ts', 'pglite')).toBe(false);
    expect(runsInOtherCiStep('a.test.ts', 'postgres')).toBe(true);
    vi.stubEnv('CI_STEP', 'postgres');
    expect(runsInOtherCiStep('a.test.ts', 'postgres')).toBe(false);
    expect(runsInOtherCiStep('a.test.ts', 'pglite')).toBe(true);
    expect(info).toHaveBeenCalledWith(expect.stringContaining('a.test.ts'));
    info.mockRestore();
  });

  it('refuses a misspelt step rather than skipping', () => {
    vi.stubEnv('CI_STEP', 'postgresql');
    expect(() => runsInOtherCiStep('a.test.ts', 'postgres')).toThrow(/CI_STEP must be pglite or postgres/);
  });
});
