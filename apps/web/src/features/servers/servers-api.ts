import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ServerInputSchema,
  type RsaKeyInfo,
  type Server,
  type ServerInput,
  type TestConnectionResult,
} from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const serversApi = createResourceHooks<Server, ServerInput>('servers');

export const serverPaths = {
  ...resourcePaths('servers'),
  rsaKey: (id: string) => `/servers/${encodeURIComponent(id)}/rsa-key`,
  testConnection: (id: string) => `/servers/${encodeURIComponent(id)}/test-connection`,
};

/** The form's values: secrets hold the mask (keep), '' (none or keep) or null (clear). */
export type ServerFormValues = {
  IPAddress: string;
  email: string;
  domainsLimitQty: number | null;
  username: string;
  sshPort: number | null;
  domainsPath: string;
  ispmanagerUri: string;
  ispmanagerUsername: string;
  ispmanagerPassword: string | null;
  ispmanagerAcceptSelfSigned: boolean;
  directAdminUri: string;
  directAdminUsername: string;
  directAdminPassword: string | null;
};

export const ServerFormSchema = ServerInputSchema;

export type KeyKind = 'ed25519' | 'rsa4096';

const itemPath = (id: string) => `${serversApi.path}/${encodeURIComponent(id)}`;
const rsaKeyKey = (id: string) => ['servers', 'rsa-key', id] as const;

/** After anything that changes a server's key, status or host key: its lists, item and key info are stale. */
function useInvalidateServer() {
  const queryClient = useQueryClient();
  return (id: string) => {
    void queryClient.invalidateQueries({ queryKey: serversApi.keys.lists() });
    void queryClient.invalidateQueries({ queryKey: serversApi.keys.item(id) });
    void queryClient.invalidateQueries({ queryKey: rsaKeyKey(id) });
  };
}

/** GET /api/servers/{id}/rsa-key: whether a key is set, its type, fingerprint and public line (never the key). */
export function useRsaKey(id: string) {
  return useQuery({
    queryKey: rsaKeyKey(id),
    queryFn: ({ signal }) => api.get<RsaKeyInfo>(`${itemPath(id)}/rsa-key`, undefined, signal),
    enabled: Boolean(id),
  });
}

export function useSaveRsaKey(id: string) {
  const invalidate = useInvalidateServer();
  return useMutation<RsaKeyInfo, ApiError, string>({
    mutationFn: (rsaKey) => api.post<RsaKeyInfo>(`${itemPath(id)}/rsa-key`, { rsaKey }),
    onSuccess: () => invalidate(id),
  });
}

export function useDeleteRsaKey(id: string) {
  const invalidate = useInvalidateServer();
  return useMutation<unknown, ApiError, void>({
    mutationFn: () => api.delete(`${itemPath(id)}/rsa-key`),
    onSuccess: () => invalidate(id),
  });
}

export function useGenerateKey(id: string) {
  const invalidate = useInvalidateServer();
  return useMutation<RsaKeyInfo, ApiError, KeyKind>({
    mutationFn: (kind) => api.post<RsaKeyInfo>(`${itemPath(id)}/rsa-key/generate`, { kind }),
    onSuccess: () => invalidate(id),
  });
}

/** POST /api/servers/{id}/test-connection: a real SSH connection; failures are 502/504 (400 when incomplete). */
export function useTestConnection(id: string) {
  const invalidate = useInvalidateServer();
  return useMutation<TestConnectionResult, ApiError, void>({
    mutationFn: () => api.post<TestConnectionResult>(`${itemPath(id)}/test-connection`),
    // A failed test records the offline status too.
    onSettled: () => invalidate(id),
  });
}

/** DELETE /api/servers/{id}/host-key: forget the trusted host key (the next test trusts the presented one). */
export function useClearHostKey(id: string) {
  const invalidate = useInvalidateServer();
  return useMutation<Server, ApiError, void>({
    mutationFn: () => api.delete<Server>(`${itemPath(id)}/host-key`),
    onSuccess: () => invalidate(id),
  });
}
