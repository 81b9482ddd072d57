import type { SearchArea, SearchHit } from '@fleetdesk/contract';
import { CLOUD_ACTIONS, DOMAIN_ACTIONS, type DomainActionEntry } from '../features/domains/domain-actions.ts';
import { SECTIONS } from './menu-items.ts';

export interface PaletteItem {
  id: string;
  label: string;
  hint?: string;
  group: string;
  /** Where choosing it goes. */
  to?: string;
  /** Or the text choosing it puts in the box (an action still waiting for its domain). */
  fill?: string;
}

export const AREA_LABELS: Record<SearchArea, string> = {
  domains: 'Domains',
  servers: 'Servers',
  clouds: 'Clouds',
  users: 'Users',
  brands: 'Brands',
  domainRegistrators: 'Domain Registrators',
};

const AREA_PATHS: Record<SearchArea, string> = {
  domains: '/domains',
  servers: '/servers',
  clouds: '/clouds',
  users: '/users',
  brands: '/brands',
  domainRegistrators: '/domain-registrators',
};

export const hitPath = (hit: Pick<SearchHit, 'area' | '_id'>) => `${AREA_PATHS[hit.area]}/${hit._id}`;

/** Screens and create forms, always on offer. */
const CREATE_LINKS: readonly { label: string; to: string }[] = [
  { label: 'Launch a site', to: '/launches/new' },
  { label: 'Create Domain', to: '/domains/create' },
  { label: 'Create User', to: '/users/create' },
  { label: 'Create Role', to: '/roles/create' },
  { label: 'Create Cloud', to: '/clouds/create' },
  { label: 'Create Proxy', to: '/proxies/create' },
  { label: 'Create Server', to: '/servers/create' },
  { label: 'Create Brand', to: '/brands/create' },
  { label: 'Create Region', to: '/regions/create' },
  { label: 'Create Firewall Rule', to: '/firewall-rules/create' },
  { label: 'Create DNS Template', to: '/dns-templates/create' },
  { label: 'Create Launch Profile', to: '/launch-profiles/create' },
  { label: 'Create Domain Registrator', to: '/domain-registrators/create' },
];

const SCREENS: PaletteItem[] = [
  { id: 'go:/', label: 'Home', group: 'Go to', to: '/' },
  ...SECTIONS.map((s) => ({ id: `go:${s.to}`, label: s.label, group: 'Go to', to: s.to })),
  ...CREATE_LINKS.map((c) => ({ id: `go:${c.to}`, label: c.label, group: 'Create', to: c.to })),
];

type DomainAction = DomainActionEntry & { cloud: boolean };
const ACTIONS: DomainAction[] = [
  ...CLOUD_ACTIONS.map((a) => ({ ...a, cloud: true })),
  ...DOMAIN_ACTIONS.map((a) => ({ ...a, cloud: false })),
];

const actionPath = (domainId: string, a: DomainAction) =>
  `/domains/${domainId}/${a.cloud ? 'cloud-flare/' : ''}${a.path}`;

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * Reads "purge cache example.com" (or "purge example.com", "dns example.com") as an action and a search term:
 * the longest leading words that some action's label contains. The term is what the API searches for.
 */
export function parseQuery(query: string): { term: string; actions: DomainAction[]; bare: boolean } {
  const words = norm(query).split(' ').filter(Boolean);
  // The whole query naming an action and no screen ("sitemap", "purge cache") is an action waiting for its domain.
  const whole = words.join(' ');
  if (whole.length >= 3 && !SCREENS.some((s) => s.label.toLowerCase().includes(whole))) {
    const actions = ACTIONS.filter((a) => a.label.toLowerCase().includes(whole));
    if (actions.length) return { term: '', actions, bare: true };
  }
  for (let k = words.length - 1; k >= 1; k--) {
    const phrase = words.slice(0, k).join(' ');
    if (phrase.length < 3) continue;
    const actions = ACTIONS.filter((a) => a.label.toLowerCase().includes(phrase));
    if (actions.length) return { term: words.slice(k).join(' '), actions, bare: false };
  }
  return { term: whole, actions: [], bare: false };
}

/** What the palette lists for a query: matching screens, then search hits (with actions on domains). */
export function paletteItems(query: string, hits: readonly SearchHit[] | undefined): PaletteItem[] {
  const q = norm(query);
  const screens = q ? SCREENS.filter((s) => s.label.toLowerCase().includes(q)) : SCREENS;
  const { actions, bare } = parseQuery(query);
  if (bare) {
    // Choosing one keeps the palette open with the action's name typed: the domain comes next.
    const prompts = actions.map((a) => ({
      id: `prompt:${a.cloud ? 'cloud-flare/' : ''}${a.path}`,
      label: `${a.label}…`,
      hint: 'then type the domain',
      group: 'Actions',
      fill: `${a.label} `,
    }));
    return [...screens, ...prompts];
  }
  const found: PaletteItem[] = [];
  for (const hit of hits ?? []) {
    const group = AREA_LABELS[hit.area];
    if (hit.area === 'domains' && actions.length) {
      for (const a of actions)
        found.push({
          id: `act:${hit._id}:${a.path}`,
          label: `${a.label} for ${hit.title}`,
          group: 'Actions',
          to: actionPath(hit._id, a),
        });
    }
    found.push({
      id: `hit:${hit.area}:${hit._id}`,
      label: hit.title,
      hint: hit.subtitle ?? undefined,
      group,
      to: hitPath(hit),
    });
  }
  // Actions first: a query naming an action wants it.
  found.sort((a, b) => Number(b.group === 'Actions') - Number(a.group === 'Actions'));
  return [...(actions.length ? found : []), ...screens, ...(actions.length ? [] : found)];
}
