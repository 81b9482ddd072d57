import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  DomainWebmasterHost,
  HostSummary,
  ImportantUrl,
  OneClickVerify,
  RecrawlQueue,
  RecrawlQuota,
  RecrawlResult,
  Sitemap,
  UserSitemap,
  Verification,
  WebmasterHost,
  YandexVerificationType,
  YandexWebmasterAccount,
  YandexWebmasterAccountInput,
} from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import { ApiError } from '../../lib/api-error.ts';
import { createResourceHooks } from '../../lib/resource.ts';

export const accountsApi = createResourceHooks<YandexWebmasterAccount, YandexWebmasterAccountInput>(
  'yandex-webmaster/accounts',
);

const enc = encodeURIComponent;
const root = '/yandex-webmaster';
export const webmasterPaths = {
  list: root,
  create: `${root}/create-account`,
  edit: (id: string) => `${root}/accounts/${enc(id)}`,
  delete: (id: string) => `${root}/accounts/${enc(id)}/delete`,
  hosts: (id: string) => `${root}/accounts/${enc(id)}/hosts`,
  createHost: (id: string) => `${root}/accounts/${enc(id)}/create-host`,
  host: (id: string, hostId: string, tab?: string) =>
    `${root}/accounts/${enc(id)}/hosts/${enc(hostId)}${tab ? `?tab=${tab}` : ''}`,
  hostDelete: (id: string, hostId: string) => `${root}/accounts/${enc(id)}/hosts/${enc(hostId)}/delete`,
};

/** The account form: "Change Api Token" unlocks the token (edit only); unticked, no token is sent. */
export type AccountFormValues = { name: string; changeApiToken: boolean; apiToken: string };

/** The API error of a Yandex error code, e.g. HOST_NOT_FOUND. */
export const isYandexError = (error: unknown, code: string) =>
  error instanceof ApiError && error.code === `yandex.${code}`;

const apiBase = (id: string) => `/api/yandex-webmaster/accounts/${enc(id)}/api`;
const hostBase = (id: string, hostId: string) => `${apiBase(id)}/hosts/${enc(hostId)}`;
const keys = {
  hosts: (id: string) => ['yandex-webmaster', 'hosts', id] as const,
  host: (id: string, hostId: string) => ['yandex-webmaster', 'host', id, hostId] as const,
  part: (id: string, hostId: string, part: string) => ['yandex-webmaster', 'host', id, hostId, part] as const,
  domain: (domainId: string) => ['yandex-webmaster', 'domain', domainId] as const,
};

export function useHosts(id: string) {
  return useQuery({
    queryKey: keys.hosts(id),
    queryFn: ({ signal }) => api.get<WebmasterHost[]>(`${apiBase(id)}/hosts`, undefined, signal),
  });
}

export function useAddHost(id: string) {
  const qc = useQueryClient();
  return useMutation<{ host_id: string }, ApiError, string>({
    mutationFn: (hostUrl) => api.post(`${apiBase(id)}/hosts`, { hostUrl }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['yandex-webmaster'] }),
  });
}

export function useDeleteHost(id: string) {
  const qc = useQueryClient();
  return useMutation<unknown, ApiError, string>({
    mutationFn: (hostId) => api.delete(hostBase(id, hostId)),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['yandex-webmaster'] }),
  });
}

export function useHost(id: string, hostId: string) {
  return useQuery({
    queryKey: keys.host(id, hostId),
    queryFn: ({ signal }) => api.get<WebmasterHost>(hostBase(id, hostId), undefined, signal),
  });
}

function useHostPart<T>(id: string, hostId: string, part: string, enabled = true, refetchInterval?: number | false) {
  return useQuery({
    queryKey: keys.part(id, hostId, part),
    queryFn: ({ signal }) => api.get<T>(`${hostBase(id, hostId)}/${part}`, undefined, signal),
    enabled,
    refetchInterval,
  });
}
export const useSummary = (id: string, hostId: string, enabled: boolean) =>
  useHostPart<HostSummary>(id, hostId, 'summary', enabled);
export const useImportantUrls = (id: string, hostId: string, enabled: boolean) =>
  useHostPart<ImportantUrl[]>(id, hostId, 'important-urls', enabled);
export const useSitemaps = (id: string, hostId: string, enabled: boolean) =>
  useHostPart<Sitemap[]>(id, hostId, 'sitemaps', enabled);
export const useUserSitemaps = (id: string, hostId: string, enabled: boolean) =>
  useHostPart<{ sitemaps: UserSitemap[]; count: number }>(id, hostId, 'user-added-sitemaps', enabled);
export const useRecrawlQuota = (id: string, hostId: string, enabled: boolean) =>
  useHostPart<RecrawlQuota>(id, hostId, 'recrawl/quota', enabled);
export const useRecrawlQueue = (id: string, hostId: string, enabled: boolean) =>
  useHostPart<RecrawlQueue>(id, hostId, 'recrawl/queue', enabled);
/** Polls while a check runs, so the tab shows the outcome without a reload. */
export function useVerification(id: string, hostId: string, enabled = true) {
  return useQuery({
    queryKey: keys.part(id, hostId, 'verification'),
    queryFn: ({ signal }) => api.get<Verification>(`${hostBase(id, hostId)}/verification`, undefined, signal),
    enabled: enabled && Boolean(hostId),
    refetchInterval: (q) => (q.state.data?.verification_state === 'IN_PROGRESS' ? 1500 : false),
  });
}

function useHostMutation<V, R>(id: string, hostId: string, run: (v: V) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation<R, ApiError, V>({
    mutationFn: run,
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.host(id, hostId) }),
  });
}
export const useAddSitemap = (id: string, hostId: string) =>
  useHostMutation(id, hostId, (url: string) =>
    api.post<{ sitemap_id: string }>(`${hostBase(id, hostId)}/user-added-sitemaps`, { url }),
  );
export const useDeleteSitemap = (id: string, hostId: string) =>
  useHostMutation(id, hostId, (sitemapId: string) =>
    api.delete(`${hostBase(id, hostId)}/user-added-sitemaps/${enc(sitemapId)}`),
  );
export const useRecrawl = (id: string, hostId: string) =>
  useHostMutation(id, hostId, (url: string) =>
    api.post<RecrawlResult>(`${hostBase(id, hostId)}/recrawl/queue`, { url }),
  );
export const useVerifyHost = (id: string, hostId: string) =>
  useHostMutation(id, hostId, (verificationType: YandexVerificationType) =>
    api.post<Verification>(`${hostBase(id, hostId)}/verification`, { verificationType }),
  );

// The domain's Yandex Webmaster tab.
export function useDomainHost(domainId: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.domain(domainId),
    queryFn: ({ signal }) =>
      api.get<DomainWebmasterHost>(`/api/domains/${enc(domainId)}/yandex-webmaster/host`, undefined, signal),
    enabled,
  });
}
export function useOneClickVerify(domainId: string) {
  const qc = useQueryClient();
  return useMutation<OneClickVerify, ApiError, 'dns' | 'file'>({
    mutationFn: (how) => api.post(`/api/domains/${enc(domainId)}/yandex-webmaster/verify-${how}`, {}),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['yandex-webmaster'] }),
  });
}
