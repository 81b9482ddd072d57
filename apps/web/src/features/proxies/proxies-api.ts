import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { ProxyInputSchema, type Proxy, type ProxyCheckResult, type ProxyInput } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

/** What the form sends: the spec's forms send isHttps as the string "true" or "false". */
export type ProxyWireInput = Omit<ProxyInput, 'isHttps'> & { isHttps: 'true' | 'false' };

export const proxiesApi = createResourceHooks<Proxy, ProxyWireInput>('proxies');

export const proxyPaths = resourcePaths('proxies');

export type ProxyFormValues = {
  isHttps: boolean;
  IPAddress: string;
  httpPort: number | null;
  username: string;
  password: string | null;
  regionId: string | null;
  proxyType: string;
};

/** The contract's rules, with the checkbox's boolean sent as "true" / "false", as the spec says. */
export const ProxyFormSchema = ProxyInputSchema.extend({
  isHttps: z.boolean().transform((value): 'true' | 'false' => (value ? 'true' : 'false')),
});

/** POST /api/proxies/{id}/check: fetches the check URL through the proxy and records the outcome. */
export function useCheckProxy() {
  const queryClient = useQueryClient();
  return useMutation<ProxyCheckResult, ApiError, string>({
    mutationFn: (id) => api.post<ProxyCheckResult>(`${proxiesApi.path}/${encodeURIComponent(id)}/check`),
    onSuccess: (_result, id) => {
      void queryClient.invalidateQueries({ queryKey: proxiesApi.keys.lists() });
      void queryClient.invalidateQueries({ queryKey: proxiesApi.keys.item(id) });
    },
  });
}
