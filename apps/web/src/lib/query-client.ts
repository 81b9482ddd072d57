import { QueryClient } from '@tanstack/react-query';

/** The spec's data behaviour: no retries, no refetch on focus, nothing cached after unmount. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, gcTime: 0 },
      mutations: { retry: false },
    },
  });
}
