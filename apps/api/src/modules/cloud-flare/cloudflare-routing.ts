import { AsyncLocalStorage } from 'node:async_hooks';
import type { Dispatcher } from 'undici';
import type { BudgetTake } from '../../integrations/cloudflare/index.ts';

export type RouteFor = (attempt: number) => Dispatcher | undefined;

/**
 * The one Cloudflare client is shared (its request budget and account-id cache must be), but its routes
 * depend on the cloud a call acts for. The service runs each cloud's calls inside `run`, and the client's
 * `dispatcherFor` reads that cloud's routes from the async context. Outside `run`, calls go direct.
 * The same context says whom the calls spend the cloud's request budget for (`budgetContext`, decision 015):
 * an operator's calls are interactive; a fleet job would pass `{ priority: 'background' }`.
 */
export function createCloudflareRouting() {
  const storage = new AsyncLocalStorage<{ routes: RouteFor; budget?: BudgetTake }>();
  return {
    dispatcherFor: (attempt: number): Dispatcher | undefined => storage.getStore()?.routes(attempt),
    budgetContext: (): BudgetTake | undefined => storage.getStore()?.budget,
    run<T>(routes: RouteFor, fn: () => Promise<T>, budget?: BudgetTake): Promise<T> {
      return storage.run({ routes, budget }, fn);
    },
  };
}
export type CloudflareRouting = ReturnType<typeof createCloudflareRouting>;
