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

/** True when the held rules grant any of the needed ones. */
export function hasAnyRule(held: readonly string[], needed: Rule | readonly Rule[]): boolean {
  return (typeof needed === 'string' ? [needed] : needed).some((r) => hasRule(held, r));
}
