import { hasRule, type Rule } from '@fleetdesk/contract';

export interface CreateItem {
  label: string;
  to: string;
  /** The API's rule for creating it: without it the form could only end in a 403, so the menu leaves it out. */
  rule: Rule;
}

/**
 * What an operator creates most, in the header's create menu: launching a site first, then the create forms, in
 * the wording of the lists' Create links and the command palette.
 */
export const CREATE_ITEMS: readonly CreateItem[] = [
  // A launch creates and changes a domain everywhere: the API asks for the domains area's rule.
  { label: 'Launch a site', to: '/launches/new', rule: 'cnv:domains' },
  { label: 'Create Domain', to: '/domains/create', rule: 'cnv:domains' },
  { label: 'Create Server', to: '/servers/create', rule: 'cnv:servers' },
  { label: 'Create Cloud', to: '/clouds/create', rule: 'cnv:clouds' },
  // DNS templates and launch profiles serve launches: the API guards them with the domains rule too.
  { label: 'Create DNS Template', to: '/dns-templates/create', rule: 'cnv:domains' },
  { label: 'Create Launch Profile', to: '/launch-profiles/create', rule: 'cnv:domains' },
  { label: 'Create User', to: '/users/create', rule: 'cnv:users' },
];

/** The items the signed-in user's rules allow, in the menu's order. */
export const createItemsFor = (rules: readonly string[]): CreateItem[] =>
  CREATE_ITEMS.filter((item) => hasRule(rules, item.rule));
