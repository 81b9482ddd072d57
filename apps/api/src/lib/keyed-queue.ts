/**
 * In-process mutual exclusion by key: holders of one key run one behind the other, holders of different keys
 * side by side. The key is forgotten when its last holder ends, so the map stays as small as the work in flight.
 */
export function createKeyedQueue() {
  const tails = new Map<string, Promise<void>>();
  return {
    async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((resolve) => (release = resolve));
      const tail = previous.then(() => mine);
      tails.set(key, tail);
      await previous;
      try {
        return await fn();
      } finally {
        release();
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
  };
}
export type KeyedQueue = ReturnType<typeof createKeyedQueue>;
