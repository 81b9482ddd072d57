import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AddGooglePropertyInput,
  GoogleAnalytics,
  GoogleDomainState,
  GoogleInspection,
  GoogleSearchAccount,
  GoogleSearchAccountInput,
  GoogleSite,
  GoogleSitemap,
  GoogleVerifyResult,
} from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { createResourceHooks } from '../../lib/resource.ts';

export const googleAccountsApi = createResourceHooks<GoogleSearchAccount, GoogleSearchAccountInput>(
  'google-search/accounts',
);

const enc = encodeURIComponent;
const root = '/google-search';
export const googlePaths = {
  list: root,
  create: `${root}/create-account`,
  edit: (id: string) => `${root}/accounts/${enc(id)}`,
  delete: (id: string) => `${root}/accounts/${enc(id)}/delete`,
};

/** The account form: "Change key" unlocks the key (edit only); unticked, no key is sent. */
export type GoogleAccountFormValues = { name: string; changeKey: boolean; serviceAccountKey: string };

const base = (domainId: string) => `/api/domains/${enc(domainId)}/google-search`;
const keys = {
  all: (domainId: string) => ['google-search', 'domain', domainId] as const,
  part: (domainId: string, part: string) => ['google-search', 'domain', domainId, part] as const,
};

/** A mutation on the domain's property that refreshes everything the tab shows of it. */
function useDomainMutation<T, V>(domainId: string, fn: (v: V) => Promise<T>) {
  const qc = useQueryClient();
  return useMutation<T, ApiError, V>({
    mutationFn: fn,
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.all(domainId) }),
  });
}

export function useGoogleState(domainId: string) {
  return useQuery({
    queryKey: keys.part(domainId, 'state'),
    queryFn: ({ signal }) => api.get<GoogleDomainState>(base(domainId), undefined, signal),
  });
}
export const useAddProperty = (domainId: string) =>
  useDomainMutation(domainId, (input: AddGooglePropertyInput) =>
    api.put<GoogleDomainState>(`${base(domainId)}/property`, input),
  );
export const useRemoveProperty = (domainId: string) =>
  useDomainMutation(domainId, () => api.delete<GoogleDomainState>(`${base(domainId)}/property`));
export const useVerifyProperty = (domainId: string) =>
  useDomainMutation(domainId, () => api.post<GoogleVerifyResult>(`${base(domainId)}/verify`));

export function useGoogleSitemaps(domainId: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.part(domainId, 'sitemaps'),
    queryFn: ({ signal }) => api.get<GoogleSitemap[]>(`${base(domainId)}/sitemaps`, undefined, signal),
    enabled,
  });
}
export const useSubmitSitemap = (domainId: string) =>
  useDomainMutation(domainId, (url: string) => api.post<GoogleSitemap[]>(`${base(domainId)}/sitemaps`, { url }));
export const useDeleteSitemap = (domainId: string) =>
  useDomainMutation(domainId, (url: string) =>
    api.delete<GoogleSitemap[]>(`${base(domainId)}/sitemaps?url=${enc(url)}`),
  );

export function useInspect(domainId: string) {
  return useMutation<GoogleInspection, ApiError, string>({
    mutationFn: (url) => api.post<GoogleInspection>(`${base(domainId)}/inspect`, { url }),
  });
}

export function useGoogleAnalytics(domainId: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.part(domainId, 'analytics'),
    queryFn: ({ signal }) => api.get<GoogleAnalytics>(`${base(domainId)}/analytics`, undefined, signal),
    enabled,
  });
}

/** The account's properties in Search Console, as Google lists them. */
export function useAccountSites(accountId: string) {
  return useQuery({
    queryKey: ['google-search', 'sites', accountId],
    queryFn: ({ signal }) =>
      api.get<GoogleSite[]>(`/api/google-search/accounts/${enc(accountId)}/sites`, undefined, signal),
  });
}

/** Google's permission level in words. */
const LEVELS: Record<string, string> = {
  siteOwner: 'Owner',
  siteFullUser: 'Full user',
  siteRestrictedUser: 'Restricted user',
  siteUnverifiedUser: 'Not verified',
};
export const permissionLabel = (level: string | null) => (level ? (LEVELS[level] ?? level) : 'Not listed by Google');
