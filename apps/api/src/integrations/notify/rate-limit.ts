/**
 * Spacing per key within this process: `acquire(key, gapMs)` waits until `gapMs` after the last message of the
 * key. Telegram allows one message a second per chat and about 30 a second per bot; several keys are acquired in
 * turn. Per process (documented in decision 046): deliveries of one channel are one job at a time, and a 429's
 * `retry_after` covers what another process sent.
 */
export function createSpacing(maxKeys = 10_000) {
  const next = new Map<string, number>();
  return {
    async acquire(key: string, gapMs: number, signal?: AbortSignal) {
      const now = Date.now();
      const at = Math.max(now, next.get(key) ?? 0);
      next.delete(key);
      next.set(key, at + gapMs);
      // Oldest first in a Map: forget the keys beyond the bound.
      while (next.size > maxKeys) next.delete(next.keys().next().value!);
      const wait = at - now;
      if (wait > 0) await sleep(wait, signal);
    },
  };
}
export type Spacing = ReturnType<typeof createSpacing>;

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
