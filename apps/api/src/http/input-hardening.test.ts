import { describe, expect, it } from 'vitest';
import { useAdminCalls, useTestApp, type Method } from '../test/fixtures.ts';

// Regressions for issue 9's "Input and identifiers": upper-case ids, NUL bytes, prototype keys in reveal.
const t = useTestApp();
const { call, create } = useAdminCalls(t, { username: 'chief' });
const auditOf = async (entityId: string) =>
  (await call('GET', `/api/audit-log?entityId=${entityId}`)).json().data.items as {
    action: string;
    entityId: string;
  }[];

describe('upper-case ids are canonicalised once', () => {
  it('audits a change and a reveal made through an upper-case id under the canonical id', async () => {
    const server = await create('servers', { IPAddress: '10.1.1.1', ispmanagerPassword: 's3cret' });
    const upper = server._id.toUpperCase();
    const patched = await call('PATCH', `/api/servers/${upper}`, { email: 'ops@example.com' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data._id).toBe(server._id);
    const revealed = await call('POST', `/api/servers/${upper}/reveal`, { field: 'ispmanagerPassword' });
    expect(revealed.statusCode, revealed.body).toBe(200);
    const history = await auditOf(server._id);
    expect(history.map((e) => e.action).sort()).toEqual(['create', 'reveal', 'update']);
    expect(history.every((e) => e.entityId === server._id)).toBe(true);
  });

  it('keeps the self-delete guard whatever the case of the id', async () => {
    const me = (await call('GET', '/auth/me')).json().data.user._id as string;
    const res = await call('DELETE', `/api/users/${me.toUpperCase()}`);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().code).toBe('self_delete');
  });

  it('lets a domain on a full server be saved again with the server id in upper case', async () => {
    const server = await create('servers', { IPAddress: '10.1.1.2', domainsLimitQty: 1 });
    const d = await create('domains', { domainName: 'full.example', status: 'active', serverId: server._id });
    const res = await call('PUT', `/api/domains/${d._id.toUpperCase()}`, {
      domainName: 'full.example',
      status: 'inactive',
      serverId: server._id.toUpperCase(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ _id: d._id, serverId: server._id, status: 'inactive' });
  });
});

describe('NUL bytes are refused with a 400', () => {
  it('in text fields of every kind, in searches and filters, and in the sign-in username', async () => {
    const brand = await create('brands', { name: 'Aurora' });
    const cases: [Method, string, object | undefined, string][] = [
      ['POST', '/api/brands', { name: 'A\u0000B' }, 'name'],
      ['PATCH', `/api/brands/${brand._id}`, { name: 'A\u0000B' }, 'name'],
      ['POST', '/api/regions', { name: '\u0000' }, 'name'],
      ['POST', '/api/servers', { IPAddress: '10.0.0.9', ispmanagerPassword: 'x\u0000y' }, 'ispmanagerPassword'],
      ['GET', '/api/brands?search=a%00b', undefined, 'search'],
      ['GET', '/api/users?search=%00', undefined, 'search'],
      ['GET', '/api/audit-log?entity=brands%00', undefined, 'entity'],
    ];
    for (const [method, url, payload, field] of cases) {
      const res = await call(method, url, payload);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(400);
      expect(res.json().fields?.[field], `${method} ${url}`).toBe('Must not contain a NUL character');
    }
    const login = await t.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { username: 'chief\u0000', password: 'correct horse battery' },
    });
    expect(login.statusCode, login.body).toBe(400);
  });

  it('maps a data exception from the database to a 400 rather than a 500', async () => {
    const { isDataException } = await import('../db/pg-errors.ts');
    expect(isDataException({ code: '22021' })).toBe(true);
    expect(isDataException({ cause: { code: '22P02' } })).toBe(true);
    expect(isDataException({ code: '23505' })).toBe(false);
  });
});

describe('reveal', () => {
  it('refuses prototype keys and unknown fields with a 400', async () => {
    const server = await create('servers', { IPAddress: '10.1.1.3', ispmanagerPassword: 's3cret' });
    for (const field of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'nope']) {
      const res = await call('POST', `/api/servers/${server._id}/reveal`, { field });
      expect(res.statusCode, `${field}: ${res.body}`).toBe(400);
      expect(res.json().code).toBe('validation_error');
    }
  });
});
