import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NAMECHEAP_ENDPOINTS, SECRET_MASK } from '@fleetdesk/contract';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const bodies: string[] = [];
const call = async (method: Method, url: string, auth: string, payload?: object) => {
  const res = await t.inject({ method, url, headers: { authorization: auth }, payload });
  bodies.push(res.body);
  return res;
};
const PATH = '/api/domain-registrators';
const KEY = 'nc-key-0123456789abcdef';
const SANDBOX = NAMECHEAP_ENDPOINTS[0].value;
const registrator = (over: object = {}) => ({
  name: 'Namecheap main',
  type: 'namecheap',
  credentials: { endpointUrl: SANDBOX, apiUsername: 'acme', apiKey: KEY },
  ...over,
});
const reveal = async (h: string, id: string) =>
  (await call('POST', `${PATH}/${id}/reveal`, h, { field: 'apiKey' })).json().data.value;

describe('/api/domain-registrators CRUD', () => {
  it('creates (201), reads, lists, updates and deletes, with the API key masked', async () => {
    const h = await t.tokenFor(['cnv:domainRegistrators']);
    const created = await call('POST', PATH, h, registrator());
    expect(created.statusCode, created.body).toBe(201);
    const r = created.json().data;
    expect(r).toEqual({
      _id: expect.any(String),
      domainRegistratorNo: 1,
      name: 'Namecheap main',
      type: 'namecheap',
      credentials: { endpointUrl: SANDBOX, apiUsername: 'acme', apiKey: SECRET_MASK },
    });
    expect((await call('GET', `${PATH}/${r._id}`, h)).json().data).toEqual(r);
    expect((await call('GET', `${PATH}?search=MAIN`, h)).json().data).toEqual({ items: [r], itemsCount: 1 });
    const renamed = await call('PUT', `${PATH}/${r._id}`, h, { name: 'Namecheap' });
    expect(renamed.json().data).toEqual({ ...r, name: 'Namecheap' });

    const noKey = await call(
      'POST',
      PATH,
      h,
      registrator({ name: 'No key', credentials: { endpointUrl: SANDBOX, apiUsername: 'a' } }),
    );
    expect(noKey.json().data.credentials.apiKey).toBeNull();

    expect((await call('DELETE', `${PATH}/${r._id}`, h)).statusCode).toBe(200);
    const gone = await call('GET', `${PATH}/${r._id}`, h);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('Domain registrator not found');
  });

  it('validates name, type and credentials with field errors', async () => {
    const h = await t.tokenFor(['cnv:domainRegistrators']);
    const empty = await call('POST', PATH, h, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().fields).toEqual({
      name: 'Name is required',
      type: 'Type is required',
      credentials: 'Credentials are required',
    });
    const cases: [object, string, string][] = [
      [{ type: 'godaddy' }, 'type', 'Type must be namecheap'],
      [{ credentials: { apiUsername: 'a' } }, 'credentials.endpointUrl', 'Endpoint URL is required'],
      [
        { credentials: { endpointUrl: 'ftp://x.test', apiUsername: 'a' } },
        'credentials.endpointUrl',
        'Endpoint URL must be an http or https URL',
      ],
      [
        { credentials: { endpointUrl: 'not a url', apiUsername: 'a' } },
        'credentials.endpointUrl',
        'Endpoint URL must be an http or https URL',
      ],
      [
        { credentials: { endpointUrl: SANDBOX, apiUsername: ' ' } },
        'credentials.apiUsername',
        'API username is required',
      ],
    ];
    for (const [over, field, message] of cases) {
      const res = await call('POST', PATH, h, registrator(over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().fields[field]).toBe(message);
    }
    const custom = await call(
      'POST',
      PATH,
      h,
      registrator({ credentials: { endpointUrl: 'http://127.0.0.1:4010/xml.response', apiUsername: 'a' } }),
    );
    expect(custom.statusCode).toBe(201);
  });

  it('sets the type only on create: a different type on update is a 400', async () => {
    const h = await t.tokenFor(['cnv:domainRegistrators']);
    const id = (await call('POST', PATH, h, registrator())).json().data._id;
    expect((await call('PATCH', `${PATH}/${id}`, h, { type: 'namecheap' })).statusCode).toBe(200);
    const other = await call('PUT', `${PATH}/${id}`, h, { type: 'godaddy' });
    expect(other.statusCode).toBe(400);
    expect(other.json().fields.type).toBe('Type must be namecheap');
    // The service refuses a change of type even for a value the schema would accept.
    await expect(
      t.c.services.domainRegistrators.update(
        id,
        { type: 'other' as 'namecheap' },
        {
          userId: null,
          username: 'test',
          rules: ['cnv'],
          requestId: null,
        },
      ),
    ).rejects.toMatchObject({ status: 400, fields: { type: 'The type can be set only on create' } });
  });

  it('refuses a duplicate name ignoring case with 409 and a field error', async () => {
    const h = await t.tokenFor(['cnv:domainRegistrators']);
    await call('POST', PATH, h, registrator());
    const dup = await call('POST', PATH, h, registrator({ name: 'NAMECHEAP MAIN' }));
    expect(dup.statusCode).toBe(409);
    expect(dup.json().fields).toEqual({ name: 'A domain registrator with this name already exists' });
  });
});

describe('registrator credentials', () => {
  it('keep the stored key for the mask or an omitted key, replace it with a new one, and never show it', async () => {
    bodies.length = 0;
    const h = await t.tokenFor(['cnv:domainRegistrators']);
    const id = (await call('POST', PATH, h, registrator())).json().data._id;

    const row = await t.c.repos.domainRegistrators.findRow(id);
    expect(row?.apiKey).toMatch(/^v1:/);
    expect(row?.apiKey).not.toContain(KEY);

    const masked = await call('PUT', `${PATH}/${id}`, h, {
      credentials: { endpointUrl: SANDBOX, apiUsername: 'acme2', apiKey: SECRET_MASK },
    });
    expect(masked.json().data.credentials).toEqual({ endpointUrl: SANDBOX, apiUsername: 'acme2', apiKey: SECRET_MASK });
    expect(await reveal(h, id)).toBe(KEY);
    await call('PATCH', `${PATH}/${id}`, h, { name: 'Renamed' });
    await call('PATCH', `${PATH}/${id}`, h, { credentials: { apiUsername: 'acme3' } });
    expect(await reveal(h, id)).toBe(KEY);

    await call('PATCH', `${PATH}/${id}`, h, { credentials: { apiKey: 'new-key-42' } });
    expect(await reveal(h, id)).toBe('new-key-42');
    const cleared = await call('PATCH', `${PATH}/${id}`, h, { credentials: { apiKey: null } });
    expect(cleared.json().data.credentials.apiKey).toBeNull();
    expect(await reveal(h, id)).toBeNull();

    const list = await call('GET', PATH, h);
    expect(list.json().data.items[0].credentials.apiKey).toBeNull();
    const reveals = bodies.filter((b) => b.includes('"field":"apiKey"'));
    for (const b of bodies.filter((b) => !reveals.includes(b))) {
      expect(b).not.toContain(KEY);
      expect(b).not.toContain('new-key-42');
      expect(b).not.toContain('v1:');
    }
    expect(t.logs.join('\n')).not.toContain(KEY);
    expect(t.logs.join('\n')).not.toContain('new-key-42');
  });

  it('moves to another endpoint only with the API key typed again, and never for an API token', async () => {
    const h = await t.tokenFor(['cnv:domainRegistrators']);
    const id = (await call('POST', PATH, h, registrator())).json().data._id;
    const prod = NAMECHEAP_ENDPOINTS[1].value;
    for (const apiKey of [SECRET_MASK, undefined]) {
      const res = await call('PATCH', `${PATH}/${id}`, h, { credentials: { endpointUrl: prod, apiKey } });
      expect(res.statusCode).toBe(400);
      expect(res.json().fields).toEqual({ 'credentials.apiKey': 'Enter the API key again to change the Endpoint URL' });
    }
    const withCreds = await call('PATCH', `${PATH}/${id}`, h, {
      credentials: { endpointUrl: 'https://user:pass@api.namecheap.com/xml.response', apiKey: KEY },
    });
    expect(withCreds.json().fields['credentials.endpointUrl']).toBe(
      'Endpoint URL must not contain a user name or password',
    );
    const token = (
      await call('POST', '/auth/tokens', h, { name: 'ci', rules: ['cnv:domainRegistrators'], expiresInDays: 30 })
    ).json().data.token as string;
    const byToken = await call('PATCH', `${PATH}/${id}`, `Bearer ${token}`, {
      credentials: { endpointUrl: prod, apiKey: KEY },
    });
    expect(byToken.statusCode).toBe(403);
    expect((await call('PATCH', `${PATH}/${id}`, `Bearer ${token}`, { name: 'Renamed' })).statusCode).toBe(200);
    const moved = await call('PATCH', `${PATH}/${id}`, h, { credentials: { endpointUrl: prod, apiKey: KEY } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data.credentials.endpointUrl).toBe(prod);
  });

  it('reveals the key through an audited call, and audits key changes as [redacted]', async () => {
    const h = await t.tokenFor(['cnv:domainRegistrators']);
    const id = (await call('POST', PATH, h, registrator())).json().data._id;
    const res = await call('POST', `${PATH}/${id}/reveal`, h, { field: 'apiKey' });
    expect(res.json()).toEqual({ data: { field: 'apiKey', value: KEY } });
    const bad = await call('POST', `${PATH}/${id}/reveal`, h, { field: 'apiUsername' });
    expect(bad.statusCode).toBe(400);
    expect(
      (await call('POST', `${PATH}/00000000-0000-4000-8000-000000000000/reveal`, h, { field: 'apiKey' })).statusCode,
    ).toBe(404);
    expect(
      (await call('POST', `${PATH}/${id}/reveal`, await t.tokenFor(['cnv:users']), { field: 'apiKey' })).statusCode,
    ).toBe(403);

    await call('PATCH', `${PATH}/${id}`, h, { credentials: { apiKey: 'second-key' } });
    await call('PATCH', `${PATH}/${id}`, h, { credentials: { apiKey: SECRET_MASK, apiUsername: 'other' } });
    const log = await call(
      'GET',
      `/api/audit-log?entity=domain-registrators&entityId=${id}`,
      await t.tokenFor(['cnv']),
    );
    const items = log.json().data.items;
    expect(items.map((e: { action: string }) => e.action)).toEqual(['update', 'update', 'reveal', 'create']);
    expect(items[0].diff).toEqual({ apiUsername: { before: 'acme', after: 'other' } });
    expect(items[1].diff).toEqual({ apiKey: { before: '[redacted]', after: '[redacted]' } });
    expect(items[2].details).toEqual({ field: 'apiKey' });
    expect(items[3].diff.apiKey).toEqual({ before: null, after: '[redacted]' });
    expect(log.body).not.toContain(KEY);
    expect(log.body).not.toContain('second-key');
    expect(log.body).not.toContain('v1:');
  });
});
