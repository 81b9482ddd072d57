import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PICKER_FIELDS, PICKER_READERS, type Rule } from '@fleetdesk/contract';
import { createTestApp, type TestApp } from '../test/harness.ts';

// Picker readers (decision 011) get `_id` and the display fields only (decision 017); the area's own rule
// and cnv keep the full record.
let t: TestApp;
let admin: string;
const ids = new Map<string, string>();
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.tokenFor(['cnv']);
  const create = async (resource: string, payload: object) => {
    const res = await t.inject({ method: 'POST', url: `/api/${resource}`, headers: { authorization: admin }, payload });
    expect(res.statusCode, res.body).toBe(201);
    ids.set(resource, res.json().data._id);
  };
  await create('regions', { name: 'EU' });
  await create('servers', {
    IPAddress: '10.2.2.2',
    email: 'ops@example.com',
    username: 'deploy',
    sshPort: 2222,
    ispmanagerUri: 'https://panel.example.com',
    ispmanagerUsername: 'panel-admin',
  });
  await create('brands', { name: 'Aurora' });
  await create('clouds', { email: 'cf@example.com', accountId: '0123456789abcdef0123456789abcdef' });
  await create('domain-registrators', {
    name: 'NC',
    type: 'namecheap',
    credentials: { endpointUrl: 'https://api.sandbox.namecheap.com/xml.response', apiUsername: 'secret-user' },
  });
  await create('domain-registrators-contacts', {
    name: 'Jane',
    firstName: 'Jane',
    lastName: 'Doe',
    address1: '1 Private Road',
    city: 'Berlin',
    postalCode: '10115',
    country: 'DE',
    phone: '+49.301234567',
    email: 'jane@example.com',
  });
  await create('firewall-rules', {
    name: 'Bots',
    action: 'block',
    expression: '(ip.src eq 1.2.3.4)',
    defaultPriority: 10,
  });
  await create('roles', { name: 'Editors', rules: ['cnv:brands'] });
  await create('yandex-webmaster/accounts', { name: 'Webmaster', apiToken: 'token-kept-from-pickers' });
}, 60_000);
afterAll(async () => t?.close());

const ownRule: Record<string, Rule> = {
  regions: 'cnv:regions',
  servers: 'cnv:servers',
  brands: 'cnv:brands',
  clouds: 'cnv:clouds',
  'domain-registrators': 'cnv:domainRegistrators',
  'domain-registrators-contacts': 'cnv:domainRegistrators',
  'firewall-rules': 'cnv:firewallRules',
  roles: 'cnv:roles',
  'yandex-webmaster/accounts': 'cnv:yandex-webmaster',
};

describe('picker reads', () => {
  it('covers every area that has picker readers', () => {
    for (const rule of Object.keys(PICKER_READERS)) expect(Object.values(ownRule)).toContain(rule);
    expect(Object.keys(PICKER_FIELDS).sort()).toEqual(Object.keys(ownRule).sort());
  });

  it('give a picker reader `_id` and the display fields only, in the list and the item', async () => {
    for (const [resource, rule] of Object.entries(ownRule)) {
      const slim = PICKER_FIELDS[resource]!;
      for (const reader of PICKER_READERS[rule] ?? []) {
        const auth = await t.tokenFor([reader]);
        const list = await t.inject({ method: 'GET', url: `/api/${resource}`, headers: { authorization: auth } });
        expect(list.statusCode, `${reader} ${resource}: ${list.body}`).toBe(200);
        const items = list.json().data.items as Record<string, unknown>[];
        expect(items.length, resource).toBeGreaterThan(0);
        for (const item of items) {
          expect(
            Object.keys(item).every((k) => slim.includes(k)),
            `${reader} ${resource}: ${JSON.stringify(item)}`,
          ).toBe(true);
          expect(item._id).toEqual(expect.any(String));
        }
        const one = await t.inject({
          method: 'GET',
          url: `/api/${resource}/${ids.get(resource)}`,
          headers: { authorization: auth },
        });
        expect(one.statusCode, one.body).toBe(200);
        expect(
          Object.keys(one.json().data).every((k) => slim.includes(k)),
          `${reader} ${resource} item`,
        ).toBe(true);
      }
    }
  });

  it('keep SSH users, panel URIs, account ids, API usernames and addresses from picker readers', async () => {
    const domainsOnly = await t.tokenFor(['cnv:domains']);
    const body = async (url: string, auth: string) =>
      (await t.inject({ method: 'GET', url, headers: { authorization: auth } })).body;
    for (const url of [
      '/api/servers',
      '/api/clouds',
      '/api/domain-registrators',
      '/api/domain-registrators-contacts',
    ]) {
      const text = await body(url, domainsOnly);
      for (const secret of ['deploy', '2222', 'panel.example.com', 'panel-admin', '0123456789abcdef', 'secret-user']) {
        expect(text, url).not.toContain(secret);
      }
      expect(text).not.toContain('1 Private Road');
      expect(text).not.toContain('+49.301234567');
    }
    // The server picker still has what it shows.
    const servers = JSON.parse(await body('/api/servers', domainsOnly)).data.items;
    expect(servers[0]).toEqual({
      _id: ids.get('servers'),
      serverNo: 1,
      IPAddress: '10.2.2.2',
      email: 'ops@example.com',
      domainsQty: 0,
      domainsLimitQty: 0,
    });
  });

  it('give the area own rule and cnv the full record', async () => {
    for (const [resource, rule] of Object.entries(ownRule)) {
      for (const auth of [admin, await t.tokenFor([rule])]) {
        const res = await t.inject({ method: 'GET', url: `/api/${resource}`, headers: { authorization: auth } });
        const keys = Object.keys(res.json().data.items[0]);
        if (resource === 'servers')
          expect(keys).toEqual(expect.arrayContaining(['username', 'sshPort', 'ispmanagerUri']));
        if (resource === 'domain-registrators-contacts')
          expect(keys).toEqual(expect.arrayContaining(['address1', 'phone']));
        if (resource === 'clouds') expect(keys).toContain('accountId');
      }
    }
  });
});
