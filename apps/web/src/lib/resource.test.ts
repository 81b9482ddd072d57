import { afterEach, describe, expect, it, vi } from 'vitest';
import { brandsApi } from '../features/brands/brands-api.ts';
import { cloudsApi } from '../features/clouds/clouds-api.ts';
import { domainRegistratorsApi } from '../features/domain-registrators/domain-registrators-api.ts';
import { contactsApi } from '../features/domain-registrators-contacts/contacts-api.ts';
import { domainsApi } from '../features/domains/domains-api.ts';
import { firewallRulesApi } from '../features/firewall-rules/firewall-rules-api.ts';
import { proxiesApi } from '../features/proxies/proxies-api.ts';
import { regionsApi } from '../features/regions/regions-api.ts';
import { rolesApi } from '../features/roles/roles-api.ts';
import { serversApi } from '../features/servers/servers-api.ts';
import { usersApi } from '../features/users/users-api.ts';

afterEach(() => vi.unstubAllGlobals());

/** The method and URL of the one request an update sends. */
async function updateRequest(api: { updateItem: (id: string, input: never) => Promise<unknown> }) {
  const fetch = vi.fn(async () => new Response(JSON.stringify({ data: { _id: 'x' } }), { status: 200 }));
  vi.stubGlobal('fetch', fetch);
  await api.updateItem('abc', {} as never);
  const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
  return `${init.method} ${url}`;
}

describe('update method', () => {
  it("sends PUT for the second spec document's resources", async () => {
    for (const [api, path] of [
      [domainsApi, '/api/domains/abc'],
      [usersApi, '/api/users/abc'],
      [rolesApi, '/api/roles/abc'],
      [firewallRulesApi, '/api/firewall-rules/abc'],
      [domainRegistratorsApi, '/api/domain-registrators/abc'],
      [contactsApi, '/api/domain-registrators-contacts/abc'],
    ] as const)
      expect(await updateRequest(api)).toBe(`PUT ${path}`);
  });

  it("keeps PATCH for the first document's resources", async () => {
    for (const api of [cloudsApi, proxiesApi, serversApi, brandsApi, regionsApi])
      expect(await updateRequest(api)).toBe(`PATCH /api/${api.resource}/abc`);
  });
});

describe("the second document's fallback messages", () => {
  const answer = (status: number, body?: object) => {
    const fetch = vi.fn(
      async () => new Response(body === undefined ? '' : JSON.stringify(body), { status }) as Response,
    );
    vi.stubGlobal('fetch', fetch);
  };

  it('show "Failed to create domain" and "Failed to delete domain" when the server gives no message', async () => {
    answer(500);
    await expect(domainsApi.createItem({} as never)).rejects.toThrow('Failed to create domain');
    answer(502, { code: 'upstream_error' });
    await expect(domainsApi.removeItem('abc')).rejects.toThrow('Failed to delete domain');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('network down');
      }),
    );
    await expect(domainsApi.removeItem('abc')).rejects.toThrow('Failed to delete domain');
  });

  it("keep the server's message when it gives one", async () => {
    answer(409, { message: 'A domain with this name already exists', code: 'conflict' });
    await expect(domainsApi.createItem({} as never)).rejects.toThrow('A domain with this name already exists');
    answer(500, { message: 'Server x is full' });
    await expect(domainsApi.removeItem('abc')).rejects.toThrow('Server x is full');
  });

  it('show "Failed to fetch data" for a failed load of its screens, and leave the first document alone', async () => {
    for (const api of [domainsApi, usersApi, rolesApi, firewallRulesApi, domainRegistratorsApi, contactsApi]) {
      answer(503);
      await expect(api.fetchList({})).rejects.toThrow('Failed to fetch data');
      answer(500, {});
      await expect(api.fetchItem('abc')).rejects.toThrow('Failed to fetch data');
    }
    answer(503);
    await expect(brandsApi.fetchList({})).rejects.toThrow('Something went wrong');
    await expect(usersApi.updateItem('abc', {})).rejects.toThrow('Something went wrong');
  });
});
