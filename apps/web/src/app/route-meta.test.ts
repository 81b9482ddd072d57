import { describe, expect, it } from 'vitest';
import { ENTITY_NAMES, crumbsFor, hostLabel, pageTitle } from './route-meta.ts';

const ID = '0b7c8f3e-1d2a-4c5b-9e8f-7a6b5c4d3e2f';

describe('crumbsFor', () => {
  it('is empty on the starting page and one unlinked crumb on a list', () => {
    expect(crumbsFor('/')).toEqual([]);
    expect(crumbsFor('/domains')).toEqual([{ label: 'Domains' }]);
  });

  it('names a domain by id and a cloud action by its menu label, skipping cloud-flare', () => {
    expect(crumbsFor(`/domains/${ID}/cloud-flare/update-dns`)).toEqual([
      { label: 'Domains', to: '/domains' },
      { label: '…', to: `/domains/${ID}`, entity: { section: 'domains', id: ID } },
      { label: 'Update DNS' },
    ]);
    expect(crumbsFor(`/domains/${ID}/firewall-rules`).at(-1)).toEqual({ label: 'Setup WAF' });
    expect(crumbsFor('/servers/create').map((c) => c.label)).toEqual(['Servers', 'Create']);
    expect(crumbsFor('/login/sso').map((c) => c.label)).toEqual(['Login', 'Single sign-on']);
  });

  it("reads a launch batch's id as a batch, not as a launch", () => {
    expect(crumbsFor(`/launches/batches/${ID}`)).toEqual([
      { label: 'Launches', to: '/launches' },
      { label: 'Batches', to: '/launches/batches' },
      { label: '…', entity: { section: 'launches/batches', id: ID } },
    ]);
    expect(crumbsFor(`/launches/${ID}`).at(-1)).toEqual({
      label: '…',
      entity: { section: 'launches', id: ID },
    });
  });

  it('never shows a piece of an id, and names a zone export by its job (issue 47)', () => {
    for (const path of [`/fleet/${ID}`, `/imports/${ID}`, `/launches/batches/${ID}`, `/domains/${ID}/parsing`])
      expect(
        crumbsFor(path)
          .map((c) => c.label)
          .join(' '),
      ).not.toMatch(/#?0b7c8f3e/);
    expect(crumbsFor(`/imports/zone-export/${ID}`).at(-1)).toEqual({ label: '…', entity: { section: 'jobs', id: ID } });
    expect(ENTITY_NAMES['fleet/plans']!({ planNo: 3 })).toBe('Fleet plan #3');
    expect(crumbsFor(`/fleet/${ID}`).at(-1)).toEqual({ label: '…', entity: { section: 'fleet/plans', id: ID } });
    expect(ENTITY_NAMES.imports!({ planNo: 4 })).toBe('Import #4');
    expect(ENTITY_NAMES.jobs!({ jobNo: 109, name: 'Fleet plan #3' })).toBe('Fleet plan #3');
  });

  it('puts contacts under Domain Registrators and names webmaster hosts', () => {
    expect(crumbsFor(`/domain-registrators-contacts/${ID}`).map((c) => c.label)).toEqual([
      'Domain Registrators',
      'Contacts',
      '…',
    ]);
    const host = encodeURIComponent('https:example.com:443');
    expect(crumbsFor(`/yandex-webmaster/accounts/${ID}/hosts/${host}/delete`).map((c) => c.label)).toEqual([
      'Yandex Webmaster',
      '…',
      'Hosts',
      'example.com',
      'Delete',
    ]);
    expect(hostLabel('%E0%A4%A')).toBe('%E0%A4%A');
  });
});

describe('pageTitle', () => {
  it('names the page first', () => {
    expect(pageTitle([{ label: 'Domains' }, { label: 'example.com' }], '/domains/x')).toBe(
      'example.com · Domains · Fleetdesk',
    );
    expect(pageTitle([], '/')).toBe('Starting Page · Fleetdesk');
  });
});
