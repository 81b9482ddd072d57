import { DomainInputSchema, type DomainInput } from '@fleetdesk/contract';
import type { Container } from '../container.ts';
import type { Actor } from '../http/context.ts';
import { AppError } from '../http/errors.ts';

const WORDS = [
  'aurora',
  'bluefin',
  'cobalt',
  'driftwood',
  'evergreen',
  'fjord',
  'granite',
  'harbor',
  'indigo',
  'juniper',
  'kestrel',
  'lumen',
  'meadow',
  'nimbus',
  'orchid',
  'pioneer',
  'quartz',
  'redwood',
  'summit',
  'tundra',
];
const TOPICS = ['news', 'games', 'travel', 'shop', 'daily', 'guide', 'club', 'media', 'review', 'deals'];
const TLDS = ['com', 'net', 'org', 'io', 'de', 'co.uk', 'fr', 'info'];
/** A few internationalised names, so the list shows Unicode and the search can be tried with it. */
const IDN_NAMES = ['bücher-welt.de', 'café-paris.fr', 'münchen-reisen.de', 'españa-viajes.es', 'zürich-news.ch'];

/**
 * Creates the domain as the API would, its input read by the contract (names stored in their ASCII form); undefined
 * on a 409 (a duplicate name or a full server).
 */
async function createOrSkip(c: Container, input: DomainInput, actor: Actor) {
  try {
    return await c.services.domains.create(DomainInputSchema.parse(input), actor);
  } catch (err) {
    if (err instanceof AppError && err.status === 409) return undefined;
    throw err;
  }
}

/** Every item of a paged list (the demo has only a few of each). */
async function all<T>(list: (q: { page: number; search: string }) => Promise<{ items: T[]; itemsCount: number }>) {
  const items: T[] = [];
  for (let page = 1; page <= 50; page++) {
    const r = await list({ page, search: '' });
    items.push(...r.items);
    if (items.length >= r.itemsCount || !r.items.length) break;
  }
  return items;
}

/** A day `days` from now, as the expiration date fields take it. */
export const dayFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * About 60 demo domains spread over the brands, servers, clouds, regions and registrators that exist when
 * it runs (each link is left empty when there is none), with some redirects, restricted ones, expiration dates
 * and WAF rules. Two domains of each brand share a cloud, so the In Use marks have something to show.
 * `serverIds` and `regionIds` narrow the servers and parser proxy regions used (the demo's reachable servers and
 * the regions with a working proxy). Registrations end from two months to about two years after the day it runs,
 * so none is expired or expiring (the demo picks the few that are, see seedDemoDashboard).
 * Names that already exist and full servers are skipped, so running it twice is harmless.
 */
export async function seedDemoDomains(
  c: Container,
  actor: Actor,
  only: { serverIds?: string[]; regionIds?: string[] } = {},
): Promise<number> {
  const s = c.services;
  const [brands, allServers, clouds, allRegions, registrators, rules] = await Promise.all([
    all((q) => s.brands.list(q)),
    all((q) => s.servers.list(q)),
    all((q) => s.clouds.list(q)),
    all((q) => s.regions.list(q)),
    all((q) => s.domainRegistrators.list(q)),
    all((q) => s.firewallRules.list(q)),
  ]);
  const servers = only.serverIds ? only.serverIds.flatMap((id) => allServers.filter((x) => x._id === id)) : allServers;
  const regions = only.regionIds ? only.regionIds.flatMap((id) => allRegions.filter((x) => x._id === id)) : allRegions;
  const pick = <T>(list: T[], i: number): T | undefined => (list.length ? list[i % list.length] : undefined);

  const names: string[] = [];
  for (let i = 0; names.length < 55 && i < 1000; i++) {
    const round = Math.floor(i / WORDS.length);
    const name = `${WORDS[i % WORDS.length]}-${TOPICS[(i + round * 3) % TOPICS.length]}.${TLDS[(i * 3 + round) % TLDS.length]}`;
    if (!names.includes(name)) names.push(name);
  }
  names.splice(3, 0, ...IDN_NAMES);

  let created = 0;
  for (const [i, domainName] of names.entries()) {
    const brand = pick(brands, i);
    const perRound = Math.max(1, brands.length);
    const round = Math.floor(i / perRound);
    const input: DomainInput = {
      domainName,
      status: i % 9 === 4 ? 'inactive' : 'active',
      brandId: brand?._id ?? null,
      // The first and third domain of each brand share one cloud, so its In Use mark and warning show; the
      // brands take turns over the clouds and most domains have none, so not every cloud is marked.
      cloudId: round === 0 || round === 2 ? (pick(clouds, i % perRound)?._id ?? null) : null,
      serverId: pick(servers, i * 5)?._id ?? null,
      parserEnabled: i % 3 === 0,
      isSinglePage: i % 10 === 7,
      parserURL: i % 3 === 0 ? `https://source-${i}.example.org/` : null,
      parserProxyRegionId: i % 3 === 0 ? (pick(regions, i)?._id ?? null) : null,
      redirectDomainName:
        i % 6 === 1 ? `www.${domainName}` : i % 11 === 2 ? `${WORDS[(i + 3) % WORDS.length]}.com` : null,
      isRestricted: i % 8 === 5,
      domainRegistratorId: i % 4 === 3 ? null : (pick(registrators, i)?._id ?? null),
      domainRegistratorExpirationDate: i % 4 === 3 ? null : dayFromNow(60 + ((i * 47) % 660)),
    };
    // A full server: the domain goes without one. A name that exists already: skipped.
    const domain = await createOrSkip(c, input, actor).then(
      (d) => d ?? (input.serverId ? createOrSkip(c, { ...input, serverId: null }, actor) : undefined),
    );
    if (!domain) continue;
    created++;
    if (rules.length && i % 5 === 0) {
      const chosen = [pick(rules, i), pick(rules, i + 1)].filter((r) => r !== undefined);
      await s.domains.saveFirewallRules(
        domain._id,
        { cloudFirewallRules: chosen.map((r) => ({ ruleId: r._id, priority: r.defaultPriority })) },
        actor,
      );
    }
  }
  return created;
}
