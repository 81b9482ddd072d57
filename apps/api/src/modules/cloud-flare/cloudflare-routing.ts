import { AsyncLocalStorage } from 'node:async_hooks';
import type { Dispatcher } from 'undici';

export type RouteFor = (attempt: number) => Dispatcher | undefined;

/**
 * The one Cloudflare client is shared (its request budget and account-id cache must be), but its routes
 * depend on the cloud a call acts for. The service runs each cloud's calls inside `run`, and the client's
 * `dispatcherFor` reads that cloud's routes from the async context. Outside `run`, calls go direct.
 */
export function createCloudflareRouting() {
  const storage = new AsyncLocalStorage<RouteFor>();
  return {
    dispatcherFor: (attempt: number): Dispatcher | undefined => storage.getStore()?.(attempt),
    run<T>(routes: RouteFor, fn: () => Promise<T>): Promise<T> {
      return storage.run(routes, fn);
    },
  };
}
export type CloudflareRouting = ReturnType<typeof createCloudflareRouting>;
