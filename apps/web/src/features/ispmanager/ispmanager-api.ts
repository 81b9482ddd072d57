import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ISPMANAGER_MESSAGES, SITE_NOT_CREATED_CODE, type IspSiteInfo } from '@fleetdesk/contract';
import { apiRequest } from '../../lib/api-client.ts';
import { ApiError, GENERIC_ERROR_MESSAGE } from '../../lib/api-error.ts';

const enc = encodeURIComponent;
const ispPath = (domainId: string, action: string) => `/api/domains/${enc(domainId)}/ispmanager/${action}`;

export const ispManagerKeys = {
  info: (domainId: string) => ['domains', 'ispmanager', domainId] as const,
};

/** The API's message, or the spec's fallback when it gave none. */
const withFallback = (error: unknown, fallback: string): never => {
  if (error instanceof ApiError && error.message !== GENERIC_ERROR_MESSAGE) throw error;
  throw new ApiError(error instanceof ApiError ? error.status : 0, fallback);
};

/** The site, or null when the panel has none (the API's siteNotCreated error). */
export function useIspSiteInfo(domainId: string) {
  return useQuery<IspSiteInfo | null, ApiError>({
    queryKey: ispManagerKeys.info(domainId),
    queryFn: async ({ signal }) => {
      try {
        return (await apiRequest<{ data: IspSiteInfo }>(ispPath(domainId, 'site-info'), { signal })).data;
      } catch (error) {
        if (error instanceof ApiError && error.code === SITE_NOT_CREATED_CODE) return null;
        if (signal.aborted) throw error;
        return withFallback(error, ISPMANAGER_MESSAGES.fetchFailed);
      }
    },
    enabled: Boolean(domainId),
  });
}

export function useCreateIspSite(domainId: string) {
  const queryClient = useQueryClient();
  return useMutation<IspSiteInfo, ApiError, void>({
    mutationFn: async () => {
      try {
        return (await apiRequest<{ data: IspSiteInfo }>(ispPath(domainId, 'create-site'), { method: 'POST' })).data;
      } catch (error) {
        return withFallback(error, ISPMANAGER_MESSAGES.createFailed);
      }
    },
    onSuccess: (site) => queryClient.setQueryData(ispManagerKeys.info(domainId), site),
  });
}
