import { AsyncLocalStorage } from 'node:async_hooks';
import type { Dispatcher } from 'undici';
import type { BudgetTake } from '../../integrations/cloudflare/index.ts';

export type RouteFor = (attempt: number) => Dispatcher | undefined;

/**
 * The one Cloudflare client is shared (its request budget and account-id cache must be), but its routes
 * depend on the cloud a call acts for. The service runs each cloud's calls inside `run`, and the client's
 * `dispatcherFor` reads that cloud's routes from the async context. Outside `run`, calls go direct.
 * The same context says whom the calls spend the cloud's request budget for (`budgetContext`, decision 015):
 * an operator's calls are interactive; a fleet job's run inside `background`, which makes them background calls
 * that wait for their slot (decision 034).
 */
export function createCloudflareRouting() {
  const storage = new AsyncLocalStorage<{ routes: RouteFor; budget?: BudgetTake }>();
  const backgroundStorage = new AsyncLocalStorage<{ waitMs: number }>();
  return {
    /** Runs `fn` as background work: its Cloudflare calls wait up to `waitMs` each for a budget slot. */
    background<T>(waitMs: number, fn: () => Promise<T>): Promise<T> {
      return backgroundStorage.run({ waitMs }, fn);
    },
    /** The budget for a call made for `owner`: background when inside `background`, else interactive. */
    budgetFor(owner: string | null): BudgetTake {
      const bg = backgroundStorage.getStore();
      return bg ? { priority: 'background', owner: null, waitMs: bg.waitMs } : { priority: 'interactive', owner };
    },
    dispatcherFor: (attempt: number): Dispatcher | undefined => storage.getStore()?.routes(attempt),
    budgetContext: (): BudgetTake | undefined => storage.getStore()?.budget,
    run<T>(routes: RouteFor, fn: () => Promise<T>, budget?: BudgetTake): Promise<T> {
      return storage.run({ routes, budget }, fn);
    },
  };
}
export type CloudflareRouting = ReturnType<typeof createCloudflareRouting>;
