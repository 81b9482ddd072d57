export const RULES = [
  'cnv',
  'cnv:brands',
  'cnv:clouds',
  'cnv:domainRegistrators',
  'cnv:domains',
  'cnv:firewallRules',
  'cnv:proxies',
  'cnv:regions',
  'cnv:roles',
  'cnv:servers',
  'cnv:users',
  'cnv:yandex-webmaster',
  'cnv:google-search',
] as const;
export type Rule = (typeof RULES)[number];

export const RULE_LABELS: Record<Rule, string> = {
  cnv: 'All',
  'cnv:brands': 'Brands',
  'cnv:clouds': 'Clouds',
  'cnv:domainRegistrators': 'Domain Registrators',
  'cnv:domains': 'Domains',
  'cnv:firewallRules': 'Firewall Rules',
  'cnv:proxies': 'Proxies',
  'cnv:regions': 'Regions',
  'cnv:roles': 'Roles',
  'cnv:servers': 'Servers',
  'cnv:users': 'Users',
  'cnv:yandex-webmaster': 'Yandex Webmaster',
  'cnv:google-search': 'Google Search Console',
};

export const ADMIN_RULE: Rule = 'cnv';

/** `cnv` grants every area; any other rule grants only itself. */
export function hasRule(held: readonly string[], needed: Rule): boolean {
  return held.includes(ADMIN_RULE) || held.includes(needed);
}

/**
 * Areas whose forms pick items of another area: holders of these rules may also read (list and get, never
 * write) that area, so that an operator who edits domains can open the server, brand or cloud picker.
 */
export const PICKER_READERS: Partial<Record<Rule, readonly Rule[]>> = {
  'cnv:regions': ['cnv:proxies', 'cnv:clouds', 'cnv:domains'],
  'cnv:servers': ['cnv:domains'],
  'cnv:brands': ['cnv:domains'],
  'cnv:clouds': ['cnv:domains'],
  'cnv:domainRegistrators': ['cnv:domains'],
  'cnv:firewallRules': ['cnv:domains'],
  'cnv:yandex-webmaster': ['cnv:domains'],
  'cnv:roles': ['cnv:users'],
};

/**
 * What a picker reader (a holder of a rule in PICKER_READERS, not of the area's own rule) gets of each item,
 * by resource path: `_id` and the fields the pickers show or copy (docs/decisions/017). SSH users and ports,
 * panel URIs, account ids, API usernames and contacts' addresses stay with the area's own rule.
 */
export const PICKER_FIELDS: Record<string, readonly string[]> = {
  regions: ['_id', 'regionNo', 'name'],
  servers: ['_id', 'serverNo', 'IPAddress', 'email', 'domainsQty', 'domainsLimitQty'],
  brands: ['_id', 'brandNo', 'name', 'isInUseCloudId', 'isInUseYandexWebmasterAccountId'],
  clouds: ['_id', 'cloudNo', 'email', 'isInUseBrandId'],
  'domain-registrators': ['_id', 'domainRegistratorNo', 'name', 'type'],
  'domain-registrators-contacts': ['_id', 'domainRegistratorContactNo', 'name', 'email', 'country'],
  // Setup WAF copies the template's expression into the domain's row.
  'firewall-rules': ['_id', 'firewallRuleNo', 'name', 'action', 'expression', 'defaultPriority'],
  roles: ['_id', 'roleNo', 'name', 'rules'],
  'yandex-webmaster/accounts': ['_id', 'id', 'yandexWebmasterAccountNo', 'name', 'isInUseBrandId'],
};

/** True when the held rules grant any of the needed ones. */
export function hasAnyRule(held: readonly string[], needed: Rule | readonly Rule[]): boolean {
  return (typeof needed === 'string' ? [needed] : needed).some((r) => hasRule(held, r));
}
