import { useSyncExternalStore } from 'react';

export const TOKEN_KEY = 'fleetdesk.token';

const listeners = new Set<() => void>();

function notify() {
  for (const listener of listeners) listener();
}

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string) {
  localStorage.setItem(TOKEN_KEY, token);
  notify();
}

export function clearToken() {
  localStorage.removeItem(TOKEN_KEY);
  notify();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  // Another tab signing in or out changes this tab's state too.
  const handleStorage = (event: StorageEvent) => {
    if (event.key === TOKEN_KEY) listener();
  };
  window.addEventListener('storage', handleStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', handleStorage);
  };
}

/** The stored token, re-rendering when it changes. */
export function useToken(): string | null {
  return useSyncExternalStore(subscribe, getToken, () => null);
}
