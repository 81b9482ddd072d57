import { QueryClientProvider } from '@tanstack/react-query';
import { DialogProvider } from '../components/dialog-host.tsx';
import { ToastProvider } from '../components/toasts.tsx';
import { createQueryClient } from '../lib/query-client.ts';
import { Layout } from './layout.tsx';
import { RequireAuth } from './require-auth.tsx';

// One cache for the page's life: signing out and in again keeps the same client, as when it lived in main.tsx.
const queryClient = createQueryClient();

/**
 * Everything a signed-in screen stands in: the query library, dialogs and toasts (inside it, so what they show may
 * query), the console's frame, and the session guard. A lazy chunk, loaded by the first signed-in route, so the
 * signed-out pages do without it (decision 048).
 */
export function SignedInShell() {
  return (
    <QueryClientProvider client={queryClient}>
      <DialogProvider>
        <ToastProvider>
          <Layout>
            <RequireAuth />
          </Layout>
        </ToastProvider>
      </DialogProvider>
    </QueryClientProvider>
  );
}
