import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CloudZoneIds,
  CloudZoneList,
  CloudZoneInfo,
  CreateZoneResult,
  DnsChangesInput,
  DnsChangesResult,
  DnsRecordList,
  Domain,
  DomainFirewallRuleDetail,
  PurgeCacheResult,
  RedirectRulesInput,
  RedirectRulesResult,
  SslMode,
  Tls13Mode,
  UpdateFirewallRulesResult,
  ZoneSetting,
} from '@fleetdesk/contract';
import { api, apiRequest } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';

const enc = encodeURIComponent;
const domainPath = (id: string) => `/api/domains/${enc(id)}`;
const cfPath = (id: string, action: string) => `${domainPath(id)}/cloud-flare/${action}`;

/** The web routes of the cloud actions (spec 2 §2). */
export const cloudFlarePaths = {
  domain: (id: string) => `/domains/${enc(id)}`,
  cloudTab: (id: string) => `/domains/${enc(id)}?tab=cloud`,
  setupWaf: (id: string) => `/domains/${enc(id)}/firewall-rules`,
  action: (id: string, action: CloudFlareAction) => `/domains/${enc(id)}/cloud-flare/${action}`,
};

export const CLOUD_FLARE_ACTIONS = [
  'create-zone',
  'delete-zone',
  'link-zone',
  'unlink-zone',
  'zone-info',
  'update-firewall-rules',
  'update-ssl-settings',
  'update-tls-1-3-settings',
  'update-dns',
  'update-redirect-rules',
  'purge-cache',
  'set-registrar-name-servers',
] as const;
export type CloudFlareAction = (typeof CLOUD_FLARE_ACTIONS)[number];

/** Query keys. The domain item shares the domains feature's key, so both see one cache entry. */
export const cloudFlareKeys = {
  domain: (id: string) => ['domains', 'item', id] as const,
  domainLists: () => ['domains', 'list'] as const,
  all: (id: string) => ['domains', 'cloud-flare', id] as const,
  zoneInfo: (id: string) => ['domains', 'cloud-flare', id, 'zone-info'] as const,
  zones: (id: string, search: string, page: number) => ['domains', 'cloud-flare', id, 'zones', search, page] as const,
  setting: (id: string, name: 'ssl' | 'tls_1_3') => ['domains', 'cloud-flare', id, 'setting', name] as const,
  dns: (id: string) => ['domains', 'cloud-flare', id, 'dns'] as const,
  redirects: (id: string) => ['domains', 'cloud-flare', id, 'redirects'] as const,
  firewallRules: (id: string) => ['domains', 'firewall-rules', id] as const,
};

export function useDomain(id: string) {
  return useQuery({
    queryKey: cloudFlareKeys.domain(id),
    queryFn: ({ signal }) => api.get<Domain>(domainPath(id), undefined, signal),
    enabled: Boolean(id),
  });
}

/** A page of the zones of the domain's cloud account (Link Zone's picker). */
export function useCloudZones(id: string, search: string, page: number, enabled = true) {
  return useQuery({
    queryKey: cloudFlareKeys.zones(id, search, page),
    queryFn: ({ signal }) => api.get<CloudZoneList>(cfPath(id, 'zones'), { search: search || undefined, page }, signal),
    enabled: enabled && Boolean(id),
    placeholderData: (previous) => previous,
    staleTime: 30_000,
  });
}

/** After a zone change the domain (its zone and ruleset ids) and everything read from Cloudflare are stale. */
function useInvalidateDomain() {
  const queryClient = useQueryClient();
  return (id: string) => {
    void queryClient.invalidateQueries({ queryKey: cloudFlareKeys.domain(id) });
    void queryClient.invalidateQueries({ queryKey: cloudFlareKeys.domainLists() });
    void queryClient.invalidateQueries({ queryKey: cloudFlareKeys.all(id) });
  };
}

/** GET zone-info: a Cloudflare failure comes back as errorMessage with 200. */
export function useZoneInfo(id: string, enabled = true) {
  return useQuery({
    queryKey: cloudFlareKeys.zoneInfo(id),
    queryFn: ({ signal }) => apiRequest<CloudZoneInfo>(cfPath(id, 'zone-info'), { signal }),
    enabled: Boolean(id) && enabled,
  });
}

function useZoneMutation<TResult, TVars = void>(id: string, call: (vars: TVars) => Promise<TResult>) {
  const invalidate = useInvalidateDomain();
  return useMutation<TResult, ApiError, TVars>({
    mutationFn: call,
    onSuccess: () => invalidate(id),
  });
}

export const useCreateZone = (id: string) =>
  useZoneMutation(id, () => api.post<CreateZoneResult>(cfPath(id, 'create-zone')));
export const useDeleteZone = (id: string) =>
  useZoneMutation(id, () => api.delete<CloudZoneIds>(cfPath(id, 'delete-zone')));
export const useUnlinkZone = (id: string) =>
  useZoneMutation(id, () => api.put<CloudZoneIds>(cfPath(id, 'unlink-zone'), {}));
export const useLinkZone = (id: string) =>
  useZoneMutation(id, (cloudZoneId: string) => api.put<CloudZoneIds>(cfPath(id, 'link-zone'), { cloudZoneId }));
export const useUpdateFirewallRules = (id: string) =>
  useZoneMutation(id, () => api.post<UpdateFirewallRulesResult>(cfPath(id, 'update-firewall-rules')));
export const usePurgeCache = (id: string) =>
  useMutation<PurgeCacheResult, ApiError, void>({
    mutationFn: () => api.post<PurgeCacheResult>(cfPath(id, 'purge-cache')),
  });

/** The domain's WAF rules as saved by Setup WAF (GET /api/domains/{id}/firewall-rules). */
export function useDomainFirewallRules(id: string) {
  return useQuery({
    queryKey: cloudFlareKeys.firewallRules(id),
    queryFn: ({ signal }) =>
      api.get<{ items: DomainFirewallRuleDetail[] }>(`${domainPath(id)}/firewall-rules`, undefined, signal),
    enabled: Boolean(id),
  });
}

export function useZoneSetting(id: string, name: 'ssl' | 'tls_1_3', enabled = true) {
  return useQuery({
    queryKey: cloudFlareKeys.setting(id, name),
    queryFn: ({ signal }) => api.get<ZoneSetting>(cfPath(id, `settings/${name}`), undefined, signal),
    enabled: Boolean(id) && enabled,
  });
}

export function useSaveZoneSetting<V extends SslMode | Tls13Mode>(id: string, name: 'ssl' | 'tls_1_3') {
  const queryClient = useQueryClient();
  return useMutation<ZoneSetting, ApiError, V>({
    mutationFn: (value) => api.put<ZoneSetting>(cfPath(id, `settings/${name}`), { value }),
    onSuccess: (setting) => queryClient.setQueryData(cloudFlareKeys.setting(id, name), setting),
  });
}

export function useDnsRecords(id: string, enabled = true) {
  return useQuery({
    queryKey: cloudFlareKeys.dns(id),
    queryFn: ({ signal }) => api.get<DnsRecordList>(cfPath(id, 'dns_records'), undefined, signal),
    enabled: Boolean(id) && enabled,
  });
}

export function useSaveDnsRecords(id: string) {
  const queryClient = useQueryClient();
  return useMutation<DnsChangesResult, ApiError, DnsChangesInput>({
    mutationFn: (changes) => api.post<DnsChangesResult>(cfPath(id, 'dns_records'), changes),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: cloudFlareKeys.dns(id) }),
  });
}

export function useRedirectRules(id: string, enabled = true) {
  return useQuery({
    queryKey: cloudFlareKeys.redirects(id),
    queryFn: ({ signal }) => api.get<RedirectRulesResult>(cfPath(id, 'redirect-rules'), undefined, signal),
    enabled: Boolean(id) && enabled,
  });
}

export function useSaveRedirectRules(id: string) {
  const queryClient = useQueryClient();
  return useMutation<RedirectRulesResult, ApiError, RedirectRulesInput>({
    mutationFn: (input) => api.post<RedirectRulesResult>(cfPath(id, 'redirect-rules'), input),
    onSuccess: (result) => queryClient.setQueryData(cloudFlareKeys.redirects(id), result),
  });
}
