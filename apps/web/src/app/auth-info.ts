import { useEffect, useState } from 'react';
import { fetchAuthInfo, type AuthInfo } from '../lib/auth.ts';

// Whether the server runs the demo is asked once a page load: it changes only with a restart. Both layouts (the
// signed-out pages' and the console's) read it here, without the query library, which a signed-out first visit
// does not load (decision 048). A failed answer is dropped, so the next layout to mount asks again.
let known: AuthInfo | null = null;
let pending: Promise<AuthInfo> | null = null;

/** The server's answer, asked at most once at a time and kept once known. */
export function loadAuthInfo(fetchInfo: () => Promise<AuthInfo> = fetchAuthInfo): Promise<AuthInfo> {
  if (known) return Promise.resolve(known);
  pending ??= fetchInfo().then(
    (info) => {
      known = info;
      return info;
    },
    (error: unknown) => {
      pending = null;
      throw error;
    },
  );
  return pending;
}

/** For tests: forget the answer. */
export function resetAuthInfo() {
  known = null;
  pending = null;
}

/** The server's auth info; null until it is known (or when it could not be had: no demo banner then). */
export function useAuthInfo(): AuthInfo | null {
  const [info, setInfo] = useState(known);
  useEffect(() => {
    if (info) return;
    let live = true;
    loadAuthInfo().then(
      (answer) => live && setInfo(answer),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [info]);
  return info;
}
