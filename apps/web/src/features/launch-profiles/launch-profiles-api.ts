import type {
  Brand,
  Cloud,
  DnsTemplate,
  Domain,
  DomainRegistrator,
  DomainRegistratorContact,
  FirewallRule,
  LaunchProfile,
  LaunchProfileInput,
  Region,
  Server,
  SslMode,
  YandexWebmasterAccount,
  GoogleSearchAccount,
} from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const launchProfilesApi = createResourceHooks<LaunchProfile, LaunchProfileInput>('launch-profiles', {
  update: 'PUT',
});
export const launchProfilePaths = resourcePaths('launch-profiles');

/** The referenced items, read by id for their labels (cnv:domains may read each of these areas for its pickers). */
export const refApis = {
  brands: createResourceHooks<Brand>('brands'),
  servers: createResourceHooks<Server>('servers'),
  clouds: createResourceHooks<Cloud>('clouds'),
  registrators: createResourceHooks<DomainRegistrator>('domain-registrators'),
  contacts: createResourceHooks<DomainRegistratorContact>('domain-registrators-contacts'),
  domains: createResourceHooks<Domain>('domains'),
  regions: createResourceHooks<Region>('regions'),
  dnsTemplates: createResourceHooks<DnsTemplate>('dns-templates'),
  firewallRules: createResourceHooks<FirewallRule>('firewall-rules'),
  yandexAccounts: createResourceHooks<YandexWebmasterAccount>('yandex-webmaster/accounts'),
  googleAccounts: createResourceHooks<GoogleSearchAccount>('google-search/accounts'),
};

export type LaunchProfileFormValues = {
  name: string;
  brandId: string | null;
  serverId: string | null;
  cloudId: string | null;
  domainRegistratorId: string | null;
  register: boolean;
  domainRegistratorContactId: string | null;
  /** All three kinds' fields; the contract keeps those of the chosen kind. */
  contentSource: { kind: 'none' | 'copy' | 'parse'; domainId: string | null; url: string; regionId: string | null };
  dnsTemplateId: string | null;
  firewallRuleIds: string[];
  sslMode: SslMode;
  tls13: boolean;
  yandexWebmasterAccountId: string | null;
  googleSearchAccountId: string | null;
};

export const NEW_PROFILE: LaunchProfileFormValues = {
  name: '',
  brandId: null,
  serverId: null,
  cloudId: null,
  domainRegistratorId: null,
  register: false,
  domainRegistratorContactId: null,
  contentSource: { kind: 'none', domainId: null, url: '', regionId: null },
  dnsTemplateId: null,
  firewallRuleIds: [],
  sslMode: 'strict',
  tls13: true,
  yandexWebmasterAccountId: null,
  googleSearchAccountId: null,
};

export const toProfileValues = (p: LaunchProfile): LaunchProfileFormValues => ({
  name: p.name,
  brandId: p.brandId,
  serverId: p.serverId,
  cloudId: p.cloudId,
  domainRegistratorId: p.domainRegistratorId,
  register: p.register,
  domainRegistratorContactId: p.domainRegistratorContactId,
  contentSource: {
    kind: p.contentSource.kind,
    domainId: p.contentSource.kind === 'copy' ? p.contentSource.domainId : null,
    url: p.contentSource.kind === 'parse' ? p.contentSource.url : '',
    regionId: p.contentSource.kind === 'parse' ? p.contentSource.regionId : null,
  },
  dnsTemplateId: p.dnsTemplateId,
  firewallRuleIds: p.firewallRuleIds,
  sslMode: p.sslMode,
  tls13: p.tls13,
  yandexWebmasterAccountId: p.yandexWebmasterAccountId,
  googleSearchAccountId: p.googleSearchAccountId,
});
