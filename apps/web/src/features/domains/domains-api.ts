import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  Cloud,
  Domain,
  DomainFirewallRuleDetail,
  DomainFirewallRulesInput,
  DomainInput,
  ListResult,
} from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { FALLBACK_MESSAGES } from '../../lib/api-error.ts';
import { SECOND_DOCUMENT, createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const domainsApi = createResourceHooks<Domain, DomainInput>('domains', {
  ...SECOND_DOCUMENT,
  fallbacks: {
    ...SECOND_DOCUMENT.fallbacks,
    create: FALLBACK_MESSAGES.createDomain,
    remove: FALLBACK_MESSAGES.deleteDomain,
  },
});

const enc = encodeURIComponent;

export const domainPaths = {
  ...resourcePaths('domains'),
  /** The edit page on one tab. */
  tab: (id: string, tab: DomainTab) => `/domains/${enc(id)}?tab=${tab}`,
  /** A domain action's route: /domains/{id}/firewall-rules, /parsing, … */
  action: (id: string, action: string) => `/domains/${enc(id)}/${action}`,
  cloudAction: (id: string, action: string) => `/domains/${enc(id)}/cloud-flare/${action}`,
};

export const DOMAIN_EXPORT_URL = '/api/domains/export';

/** The edit page's tabs, in order, with their ?tab= keys. */
export const DOMAIN_TABS = [
  { key: 'general', title: 'General' },
  { key: 'cloud', title: 'Cloud' },
  { key: 'direct-admin', title: 'Direct Admin' },
  { key: 'isp-manager', title: 'ISP Manager' },
  { key: 'domain-registrator', title: 'Domain Registrator' },
  { key: 'yandex-webmaster', title: 'Yandex Webmaster' },
] as const;
export type DomainTab = (typeof DOMAIN_TABS)[number]['key'];

/** The form's values. Text boxes hold '' for "none"; the contract's schema turns that into null. */
export type DomainFormValues = {
  domainName: string;
  status: 'active' | 'inactive';
  serverId: string | null;
  brandId: string | null;
  cloudId: string | null;
  parserEnabled: boolean;
  isSinglePage: boolean;
  parserURL: string;
  parserProxyRegionId: string | null;
  redirectDomainName: string;
  isRestricted: boolean;
  domainRegistratorId: string | null;
  domainRegistratorExpirationDate: string;
  yandexWebmasterAccountId: string | null;
};

export const NEW_DOMAIN: DomainFormValues = {
  domainName: '',
  status: 'active',
  serverId: null,
  brandId: null,
  cloudId: null,
  parserEnabled: false,
  isSinglePage: false,
  parserURL: '',
  parserProxyRegionId: null,
  redirectDomainName: '',
  isRestricted: false,
  domainRegistratorId: null,
  domainRegistratorExpirationDate: '',
  yandexWebmasterAccountId: null,
};

export const toFormValues = (d: Domain): DomainFormValues => ({
  domainName: d.domainNameUnicode,
  status: d.status,
  serverId: d.serverId,
  brandId: d.brandId,
  cloudId: d.cloudId,
  parserEnabled: d.parserEnabled,
  isSinglePage: d.isSinglePage,
  parserURL: d.parserURL ?? '',
  parserProxyRegionId: d.parserProxyRegionId,
  redirectDomainName: d.redirectDomainNameUnicode ?? '',
  isRestricted: d.isRestricted,
  domainRegistratorId: d.domainRegistratorId,
  domainRegistratorExpirationDate: d.domainRegistratorExpirationDate ?? '',
  yandexWebmasterAccountId: d.yandexWebmasterAccountId,
});

/** Shared with the cloud-flare feature's key, so its "update firewall rules" page sees the saved set. */
export const domainFirewallRulesKey = (id: string) => ['domains', 'firewall-rules', id] as const;

/** GET /api/domains/{id}/firewall-rules: the domain's WAF rules with their templates' fields. */
export function useDomainFirewallRules(id: string) {
  return useQuery({
    queryKey: domainFirewallRulesKey(id),
    queryFn: ({ signal }) =>
      api.get<{ items: DomainFirewallRuleDetail[] }>(`/api/domains/${enc(id)}/firewall-rules`, undefined, signal),
    enabled: Boolean(id),
  });
}

/** POST /api/domains/{id}/firewall-rules: stores the set (Setup WAF). */
export function useSaveDomainFirewallRules(id: string) {
  const queryClient = useQueryClient();
  return useMutation<{ items: DomainFirewallRuleDetail[] }, ApiError, DomainFirewallRulesInput>({
    mutationFn: (input) => api.post(`/api/domains/${enc(id)}/firewall-rules`, input),
    onSuccess: (data) => {
      queryClient.setQueryData(domainFirewallRulesKey(id), data);
      void queryClient.invalidateQueries({ queryKey: domainsApi.keys.item(id) });
    },
  });
}

/**
 * Whether another domain of the brand (not this one) already uses the cloud: the clouds list's in-use check,
 * narrowed by the cloud's email. It drives the warning under the brand and cloud fields, for a loaded domain
 * as much as for a fresh pick.
 */
export function useCloudBrandConflict(opts: {
  domainId: string | undefined;
  brandId: string | null;
  cloud: Pick<Cloud, '_id' | 'email'> | null;
}) {
  const { domainId, brandId, cloud } = opts;
  const params = {
    checkInUseBrandId: brandId,
    checkInUseBrandIdDomainId: domainId,
    search: cloud?.email,
    page: 1,
  };
  const query = useQuery({
    queryKey: ['clouds', 'list', params],
    queryFn: ({ signal }) => api.get<ListResult<Cloud>>('/api/clouds', params, signal),
    enabled: Boolean(brandId && cloud),
  });
  if (!brandId || !cloud) return false;
  return Boolean(query.data?.items.find((c) => c._id === cloud._id)?.isInUseBrandId);
}
