import type { NamecheapSim } from './server.ts';

export interface NamecheapDemoSeed {
  apiUser: string;
  apiKey: string;
  /** Names the account holds; created for the console's domains, plus the extra ones to import. */
  domains: string[];
}

const EXTRA = [
  'atlas-outdoor.com',
  'birch-studio.net',
  'cedar-labs.io',
  'delta-courier.com',
  'ember-kitchen.org',
  'fable-press.info',
  'granite-works.dev',
  'harbor-notes.com',
  'iris-optics.app',
  'juniper-trail.xyz',
  'kestrel-air.com',
  'lumen-bank.net',
  'moss-garden.org',
  'nimbus-weather.io',
  'orbit-sports.com',
  'пример-домена.рф',
];

const isoIn = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * A demo Namecheap account: the given names (the console's domains tied to the demo registrator, with their
 * expiration dates) and about fifteen more that exist only at the registrar, to import. Some expire within
 * weeks and one has expired, so the list and the info block have every state to show.
 */
export function seedNamecheapDemo(
  sim: NamecheapSim,
  account: { apiUser: string; apiKey: string },
  owned: { name: string; expires?: string | null }[] = [],
): NamecheapDemoSeed {
  sim.addAccount({ ...account, balance: 500 });
  const names: string[] = [];
  for (const [i, d] of owned.entries()) {
    if (sim.domain(account.apiUser, d.name)) continue;
    sim.addDomain(account.apiUser, d.name, { expires: d.expires ?? isoIn(200 + i * 7), created: '2023-05-01' });
    names.push(d.name);
  }
  for (const [i, name] of EXTRA.entries()) {
    if (sim.domain(account.apiUser, name)) continue;
    // Every third one expires within a month; the last one has expired.
    const expires = i === EXTRA.length - 1 ? isoIn(-10) : i % 3 === 0 ? isoIn(5 + i) : isoIn(120 + i * 20);
    sim.addDomain(account.apiUser, name, { expires, created: '2022-03-15' });
    names.push(name);
  }
  return { ...account, domains: names };
}
