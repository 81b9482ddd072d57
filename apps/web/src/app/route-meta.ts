import { CLOUD_ACTIONS, DOMAIN_ACTIONS } from '../features/domains/domain-actions.ts';
import { SECTIONS } from './menu-items.ts';

/**
 * Breadcrumbs and page titles, derived here from the path alone (plus entity names fetched by id), so that
 * no feature has to declare them: a route added later gets a sensible trail from its segments.
 */

export interface Crumb {
  label: string;
  /** Where it leads; the last crumb (the page itself) has none. */
  to?: string;
  /** An entity whose name replaces the label once loaded. */
  entity?: { section: string; id: string };
}

/** Sections reached outside the menu, and their parent. */
const EXTRA_SECTIONS: Record<string, { label: string; parent?: Crumb }> = {
  'domain-registrators-contacts': {
    label: 'Contacts',
    parent: { label: 'Domain Registrators', to: '/domain-registrators' },
  },
  'notification-channels': { label: 'Notification Channels', parent: { label: 'Alerts', to: '/alerts' } },
  'alert-rules': { label: 'Alert Rules', parent: { label: 'Alerts', to: '/alerts' } },
};

/** Segment labels: the action menus' own labels first, then the other sub-routes. */
const SEGMENT_LABELS: Record<string, string> = {
  create: 'Create',
  delete: 'Delete',
  'rsa-key': 'RSA Key',
  sso: 'Single sign-on',
  'test-connection': 'Test Connection',
  domains: 'Domains',
  hosts: 'Hosts',
  'create-host': 'Create Host',
  'create-account': 'Create Account',
  ...Object.fromEntries(CLOUD_ACTIONS.map((a) => [a.path, a.label])),
  ...Object.fromEntries(DOMAIN_ACTIONS.filter((a) => a.path !== 'delete').map((a) => [a.path, a.label])),
};

/** An entity's crumb until its name is loaded. */
export const ENTITY_PENDING = '…';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const titleCase = (s: string) =>
  s
    .split('-')
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');

export const segmentLabel = (segment: string) => SEGMENT_LABELS[segment] ?? titleCase(segment);

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** A webmaster host id ("https:example.com:443") as the host name. */
export const hostLabel = (hostId: string) => {
  const parts = safeDecode(hostId).split(':');
  return parts.length >= 2 ? parts[1]! : parts[0]!;
};

export function sectionOf(pathname: string): string {
  return pathname.split('/').filter(Boolean)[0] ?? '';
}

/** The trail for a path: section, entity, then sub-pages; [] for the starting page. */
export function crumbsFor(pathname: string): Crumb[] {
  const segs = pathname.split('/').filter(Boolean);
  if (segs.length === 0) return [];
  const [section, ...rest] = segs as [string, ...string[]];
  const crumbs: Crumb[] = [];
  const menu = SECTIONS.find((s) => s.to === `/${section}`);
  const extra = EXTRA_SECTIONS[section];
  if (extra?.parent) crumbs.push(extra.parent);
  crumbs.push({
    label: menu?.label ?? extra?.label ?? segmentLabel(section),
    to: section === 'domain-registrators-contacts' ? '/domain-registrators?tab=contacts' : `/${section}`,
  });
  let base = `/${section}`;
  for (let i = 0; i < rest.length; i++) {
    const seg = rest[i]!;
    base += `/${seg}`;
    const accountsOf = section === 'yandex-webmaster' || section === 'google-search';
    if (seg === 'cloud-flare' || (accountsOf && seg === 'accounts')) continue;
    if (UUID.test(seg)) {
      const entitySection = accountsOf
        ? `${section}/accounts`
        : section === 'launches' && rest[i - 1] === 'batches'
          ? 'launches/batches'
          : section === 'imports' && rest[i - 1] === 'zone-export'
            ? 'jobs'
            : section === 'fleet'
              ? 'fleet/plans'
              : section;
      // Named once loaded ("Fleet plan #3", "example.com"); never a piece of the id meanwhile (issue 47).
      crumbs.push({ label: ENTITY_PENDING, to: base, entity: { section: entitySection, id: seg } });
    } else if (section === 'yandex-webmaster' && rest[i - 1] === 'hosts') {
      crumbs.push({ label: hostLabel(seg), to: base });
    } else {
      crumbs.push({ label: segmentLabel(seg), to: base });
    }
  }
  // The page itself is not a link.
  const last = crumbs[crumbs.length - 1];
  if (last) delete last.to;
  return crumbs;
}

/** "example.com · Domains · Fleetdesk": the page, then what it belongs to, most specific first. */
export function pageTitle(crumbs: readonly { label: string }[], pathname: string): string {
  if (pathname === '/' || crumbs.length === 0) return pathname === '/' ? 'Starting Page · Fleetdesk' : 'Fleetdesk';
  return [...crumbs.map((c) => c.label).reverse(), 'Fleetdesk'].join(' · ');
}

/** How each section's entity is fetched and named. */
export const ENTITY_NAMES: Record<string, (item: Record<string, unknown>) => string | undefined> = {
  domains: (d) => str(d.domainNameUnicode) ?? str(d.domainName),
  users: (u) => str(u.username),
  roles: (r) => str(r.name),
  clouds: (c) => str(c.email),
  proxies: (p) => str(p.IPAddress) ?? (p.proxyNo ? `Proxy ${String(p.proxyNo)}` : undefined),
  servers: (s) => str(s.IPAddress),
  brands: (b) => str(b.name),
  regions: (r) => str(r.name),
  'firewall-rules': (r) => str(r.name),
  'dns-templates': (t) => str(t.name),
  'launch-profiles': (p) => str(p.name),
  'domain-registrators': (r) => str(r.name),
  'domain-registrators-contacts': (c) => str(c.name),
  'yandex-webmaster/accounts': (a) => str(a.name),
  'google-search/accounts': (a) => str(a.name),
  jobs: (j) => str(j.name) ?? (j.jobNo ? `Job #${String(j.jobNo)}` : undefined),
  'fleet/plans': (p) => (p.planNo ? `Fleet plan #${String(p.planNo)}` : undefined),
  imports: (p) => (p.planNo ? `Import #${String(p.planNo)}` : undefined),
  launches: (l) => (l.launchNo ? `Launch #${String(l.launchNo)}` : undefined),
  'launches/batches': (b) => (b.batchNo ? `Launch batch #${String(b.batchNo)}` : undefined),
};

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}
