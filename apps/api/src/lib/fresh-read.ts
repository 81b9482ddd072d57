/**
 * Shares one read among the callers that need its answer, without ever answering from a read that started
 * before the caller asked: at most one read is in flight, and a caller arriving while one is gets the next one,
 * started as soon as the one in flight ends. A write committed before a caller asked is therefore always seen,
 * yet under load one statement serves every request that arrived during the last one (issue 15: the kept
 * domains pages' version check, one statement per request before).
 */
export function freshRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const p = read().finally(() => {
      if (inFlight === p) inFlight = undefined;
    });
    inFlight = p;
    return p;
  };
  const settled = () => undefined;
  return () => {
    if (!inFlight) return start();
    return (queued ??= inFlight.then(settled, settled).then(() => {
      queued = undefined;
      return start();
    }));
  };
}

/**
 * freshRead per key: callers asking for the same key share reads as above, each key apart. A key is forgotten as
 * soon as no caller waits on it, so the keys held are at most the callers in flight. `read` must give the same
 * answer for the same key (the latest one given is the one run).
 */
export function freshReadByKey<T>(): (key: string, read: () => Promise<T>) => Promise<T> {
  const byKey = new Map<string, { get: () => Promise<T>; read: () => Promise<T>; waiting: number }>();
  return (key, read) => {
    let e = byKey.get(key);
    if (!e) {
      const entry: { get: () => Promise<T>; read: () => Promise<T>; waiting: number } = {
        read,
        waiting: 0,
        get: freshRead(() => entry.read()),
      };
      byKey.set(key, (e = entry));
    }
    const entry = e;
    entry.read = read;
    entry.waiting++;
    return entry.get().finally(() => {
      if (--entry.waiting === 0 && byKey.get(key) === entry) byKey.delete(key);
    });
  };
}
