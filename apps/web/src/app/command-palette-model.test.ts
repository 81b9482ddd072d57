import { describe, expect, it } from 'vitest';
import type { SearchHit } from '@fleetdesk/contract';
import { paletteItems, parseQuery } from './command-palette-model.ts';

const hit = (area: SearchHit['area'], title: string, id = '0b7c8f3e-1d2a-4c5b-9e8f-7a6b5c4d3e2f'): SearchHit => ({
  area,
  _id: id,
  title,
  subtitle: null,
});

describe('parseQuery', () => {
  it('reads leading words as an action and the rest as the search term', () => {
    const p = parseQuery('Purge cache  example.com');
    expect(p.term).toBe('example.com');
    expect(p.actions.map((a) => a.label)).toEqual(['Purge Cache']);
    expect(parseQuery('purge example.com').actions.map((a) => a.label)).toEqual(['Purge Cache']);
    expect(parseQuery('dns example.com').actions.map((a) => a.label)).toEqual(['Update DNS']);
  });
  it('is a plain search otherwise', () => {
    expect(parseQuery('example.com')).toEqual({ term: 'example.com', actions: [], bare: false });
    expect(parseQuery('ex ample')).toEqual({ term: 'ex ample', actions: [], bare: false });
  });
});

describe('paletteItems', () => {
  it('lists screens, filtered, then hits linked to their edit routes', () => {
    const items = paletteItems('serv', [hit('servers', '10.0.0.1')]);
    expect(items.map((i) => i.label)).toEqual(['Servers', 'Create Server', '10.0.0.1']);
    expect(items[2]!.to).toBe('/servers/0b7c8f3e-1d2a-4c5b-9e8f-7a6b5c4d3e2f');
  });
  it('offers the action on each domain found, first', () => {
    const items = paletteItems('purge cache example', [hit('domains', 'example.com')]);
    expect(items[0]).toMatchObject({
      label: 'Purge Cache for example.com',
      to: '/domains/0b7c8f3e-1d2a-4c5b-9e8f-7a6b5c4d3e2f/cloud-flare/purge-cache',
    });
    const waf = paletteItems('setup waf example', [hit('domains', 'example.com')]);
    expect(waf[0]!.to).toBe('/domains/0b7c8f3e-1d2a-4c5b-9e8f-7a6b5c4d3e2f/firewall-rules');
  });
  it('lists a bare action word as the action, waiting for its domain', () => {
    expect(parseQuery('sitemap')).toMatchObject({ term: '', bare: true });
    const items = paletteItems('sitemap', undefined);
    expect(items).toEqual([
      {
        id: 'prompt:generate-sitemap',
        label: 'Generate Sitemap…',
        hint: 'then type the domain',
        group: 'Actions',
        fill: 'Generate Sitemap ',
      },
    ]);
    expect(paletteItems('purge', undefined).map((i) => i.label)).toEqual(['Purge Cache…']);
    // A word that also names a screen stays a search ("domain" is also Delete Domain).
    expect(parseQuery('domain')).toEqual({ term: 'domain', actions: [], bare: false });
    // Filled in, the action and a domain name read as before.
    expect(parseQuery('Generate Sitemap example')).toMatchObject({ term: 'example', bare: false });
  });
});
