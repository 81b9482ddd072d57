import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadAuthInfo, resetAuthInfo } from './auth-info.ts';

afterEach(() => resetAuthInfo());

describe('auth info without the query library', () => {
  it('asks once for callers at the same time, and not again once known', async () => {
    const fetchInfo = vi.fn(async () => ({ demo: true }));
    const [a, b] = await Promise.all([loadAuthInfo(fetchInfo), loadAuthInfo(fetchInfo)]);
    expect(a).toEqual({ demo: true });
    expect(b).toBe(a);
    expect(await loadAuthInfo(fetchInfo)).toBe(a);
    expect(fetchInfo).toHaveBeenCalledTimes(1);
  });

  it('asks again after a failed answer', async () => {
    const fetchInfo = vi
      .fn<() => Promise<{ demo: boolean }>>()
      .mockRejectedValueOnce(new Error('offline'))
      .mockResolvedValueOnce({ demo: false });
    await expect(loadAuthInfo(fetchInfo)).rejects.toThrow('offline');
    expect(await loadAuthInfo(fetchInfo)).toEqual({ demo: false });
    expect(fetchInfo).toHaveBeenCalledTimes(2);
  });
});
