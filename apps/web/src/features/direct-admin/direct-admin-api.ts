import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  DIRECT_ADMIN_MESSAGES,
  DirectAdminServiceResponseSchema,
  type DirectAdminCreateResult,
  type DirectAdminDeleteResult,
  type DirectAdminDomainInfo,
  type DirectAdminServiceResponse,
} from '@fleetdesk/contract';
import { apiFetch } from '../../lib/api-client.ts';
import { ApiError, GENERIC_ERROR_MESSAGE, toApiError } from '../../lib/api-error.ts';

const enc = encodeURIComponent;
const daPath = (domainId: string, action: string) => `/api/domains/${enc(domainId)}/direct-admin/${action}`;

export const directAdminKeys = {
  info: (domainId: string) => ['domains', 'direct-admin', domainId] as const,
};

/** An API error that may carry DirectAdmin's own answer (serviceResponse: error, result, extended). */
export class DirectAdminApiError extends ApiError {
  serviceResponse?: DirectAdminServiceResponse;
}

/** A Direct Admin call: the `data` of the answer, or a DirectAdminApiError with the fallback message. */
async function request<T>(path: string, method: 'GET' | 'POST', fallback: string, signal?: AbortSignal): Promise<T> {
  const response = await apiFetch(path, { method, signal });
  let body: unknown;
  try {
    const text = await response.text();
    body = text ? (JSON.parse(text) as unknown) : undefined;
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new DirectAdminApiError(response.status, fallback);
  }
  if (response.ok) return (body as { data: T }).data;
  const base = toApiError(response.status, body);
  const message = base.message === GENERIC_ERROR_MESSAGE ? fallback : base.message;
  const err = new DirectAdminApiError(base.status, message, {
    code: base.code,
    fields: base.fields,
    requestId: base.requestId,
  });
  const sr = DirectAdminServiceResponseSchema.safeParse(
    (body as { serviceResponse?: unknown } | undefined)?.serviceResponse,
  );
  if (sr.success) err.serviceResponse = sr.data;
  return Promise.reject(err);
}

export function useDirectAdminInfo(domainId: string) {
  return useQuery<DirectAdminDomainInfo, DirectAdminApiError>({
    queryKey: directAdminKeys.info(domainId),
    queryFn: ({ signal }) =>
      request<DirectAdminDomainInfo>(daPath(domainId, 'domain-info'), 'GET', DIRECT_ADMIN_MESSAGES.fetchFailed, signal),
    enabled: Boolean(domainId),
  });
}

export function useCreateDirectAdminDomain(domainId: string) {
  const queryClient = useQueryClient();
  return useMutation<DirectAdminCreateResult, DirectAdminApiError, void>({
    mutationFn: () => request(daPath(domainId, 'create-domain'), 'POST', DIRECT_ADMIN_MESSAGES.createFailed),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: directAdminKeys.info(domainId) }),
  });
}

export function useDeleteDirectAdminDomain(domainId: string) {
  const queryClient = useQueryClient();
  return useMutation<DirectAdminDeleteResult, DirectAdminApiError, void>({
    mutationFn: () => request(daPath(domainId, 'delete-domain'), 'POST', DIRECT_ADMIN_MESSAGES.deleteFailed),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: directAdminKeys.info(domainId) }),
  });
}
