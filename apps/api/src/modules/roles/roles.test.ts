import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RULES } from '@fleetdesk/contract';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, auth: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: auth }, payload });
const roleIdByName = async (auth: string, name: string) =>
  (await call('GET', `/api/roles?search=${encodeURIComponent(name)}`, auth)).json().data.items[0]._id as string;

describe('/api/roles CRUD', () => {
  it('creates (201) with rules kept once in the spec order, reads, lists, updates with PUT and PATCH, deletes', async () => {
    const h = await t.tokenFor(['cnv:roles', 'cnv:brands', 'cnv:regions', 'cnv:domains']);
    const created = await call('POST', '/api/roles', h, {
      name: '  Editors ',
      rules: ['cnv:regions', 'cnv:brands', 'cnv:regions'],
    });
    expect(created.statusCode, created.body).toBe(201);
    const r = created.json().data;
    expect(r).toEqual({
      _id: expect.any(String),
      roleNo: expect.any(Number),
      name: 'Editors',
      rules: ['cnv:brands', 'cnv:regions'],
      requireTwoFactor: false,
      tokensWithoutExpiry: false,
    });
    expect((await call('GET', `/api/roles/${r._id}`, h)).json().data).toEqual(r);
    const list = (await call('GET', '/api/roles?search=edit', h)).json().data;
    expect(list).toEqual({ items: [r], itemsCount: 1 });

    const put = await call('PUT', `/api/roles/${r._id}`, h, { rules: ['cnv:domains'] });
    expect(put.json().data).toMatchObject({ name: 'Editors', rules: ['cnv:domains'] });
    const patched = await call('PATCH', `/api/roles/${r._id}`, h, { name: 'Writers' });
    expect(patched.json().data).toMatchObject({ name: 'Writers', rules: ['cnv:domains'] });
    const none = await call('PATCH', `/api/roles/${r._id}`, h, { rules: [] });
    expect(none.json().data.rules).toEqual([]);
    const strict = await call('PATCH', `/api/roles/${r._id}`, h, {
      requireTwoFactor: true,
      tokensWithoutExpiry: 'true',
    });
    expect(strict.json().data).toMatchObject({ requireTwoFactor: true, tokensWithoutExpiry: true, name: 'Writers' });

    expect((await call('DELETE', `/api/roles/${r._id}`, h)).statusCode).toBe(200);
    const gone = await call('GET', `/api/roles/${r._id}`, h);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('Role not found');
  });

  it('accepts each of the twelve rules and refuses an unknown one with a field error', async () => {
    const h = await t.tokenFor(['cnv']);
    const all = await call('POST', '/api/roles', h, { name: 'Everything', rules: [...RULES] });
    expect(all.json().data.rules).toEqual([...RULES]);

    const bad = await call('POST', '/api/roles', h, { name: 'Bad', rules: ['cnv:brands', 'cnv:nope', 'root'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({ rules: 'Unknown rules: cnv:nope, root' });
    const badUpdate = await call('PATCH', `/api/roles/${all.json().data._id}`, h, { rules: ['cnv:nope'] });
    expect(badUpdate.json().fields).toEqual({ rules: 'Unknown rule: cnv:nope' });
    expect((await call('POST', '/api/roles', h, { name: 'X', rules: 'cnv' })).json().fields.rules).toBe(
      'Rules must be a list',
    );
    const noName = await call('POST', '/api/roles', h, { rules: [] });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().fields.name).toBe('Name is required');
  });

  it('refuses a duplicate name ignoring case with 409 and a field error', async () => {
    const h = await t.tokenFor(['cnv:roles']);
    await call('POST', '/api/roles', h, { name: 'Editors', rules: [] });
    const dup = await call('POST', '/api/roles', h, { name: 'EDITORS', rules: [] });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({
      message: 'A role with this name already exists',
      fields: { name: 'A role with this name already exists' },
    });
  });

  it('applies a change of rules to signed-in holders at once', async () => {
    const h = await t.tokenFor(['cnv:roles', 'cnv:brands', 'cnv:regions']);
    const holder = await t.tokenFor(['cnv:brands'], { username: 'holder' });
    const id = await roleIdByName(h, 'role-holder');
    expect((await call('GET', '/api/brands', holder)).statusCode).toBe(200);
    await call('PATCH', `/api/roles/${id}`, h, { rules: ['cnv:regions'] });
    expect((await call('GET', '/api/brands', holder)).statusCode).toBe(403);
    expect((await call('GET', '/api/regions', holder)).statusCode).toBe(200);
  });
});

describe('role guards', () => {
  it('refuses to delete a role held by users, saying how many', async () => {
    const admin = await t.tokenFor(['cnv']);
    const role = (await call('POST', '/api/roles', admin, { name: 'Editors', rules: ['cnv:brands'] })).json().data._id;
    const ids: string[] = [];
    for (const username of ['ann', 'ben', 'cat']) {
      const res = await call('POST', '/api/users', admin, {
        username,
        name: username,
        email: `${username}@example.com`,
        password: 'long enough password',
        status: username === 'cat' ? 'inactive' : 'active',
        roles: [role],
      });
      ids.push(res.json().data._id);
    }
    const three = await call('DELETE', `/api/roles/${role}`, admin);
    expect(three.statusCode).toBe(409);
    expect(three.json()).toMatchObject({ message: 'This role is held by 3 users', code: 'in_use' });
    await call('PATCH', `/api/users/${ids[0]}`, admin, { roles: [] });
    await call('DELETE', `/api/users/${ids[1]}`, admin);
    expect((await call('DELETE', `/api/roles/${role}`, admin)).json().message).toBe('This role is held by 1 user');
    await call('PATCH', `/api/users/${ids[2]}`, admin, { roles: [] });
    expect((await call('DELETE', `/api/roles/${role}`, admin)).statusCode).toBe(200);
  });

  it('refuses to take cnv away from a role when that leaves no active user holding it', async () => {
    const root = await t.tokenFor(['cnv'], { username: 'root' });
    const rootRole = await roleIdByName(root, 'role-root');
    const res = await call('PUT', `/api/roles/${rootRole}`, root, { rules: ['cnv:roles'] });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      message: 'This change would take the All rule (cnv) from the last active user holding it',
      code: 'last_admin',
    });
    expect((await call('GET', `/api/roles/${rootRole}`, root)).json().data.rules).toEqual(['cnv']);
    // Renaming, or keeping cnv, is fine.
    expect(
      (await call('PATCH', `/api/roles/${rootRole}`, root, { name: 'Root', rules: ['cnv', 'cnv:users'] })).statusCode,
    ).toBe(200);

    // Another active administrator through another role: now the change is allowed.
    await t.tokenFor(['cnv'], { username: 'root2' });
    const ok = await call('PUT', `/api/roles/${rootRole}`, root, { rules: ['cnv:roles'] });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('lets only a holder of cnv grant it or change a role holding it', async () => {
    await t.tokenFor(['cnv'], { username: 'root' });
    const manager = await t.tokenFor(['cnv:roles', 'cnv:brands', 'cnv:regions']);
    const grant = await call('POST', '/api/roles', manager, { name: 'Sneaky', rules: ['cnv'] });
    expect(grant.statusCode).toBe(403);
    expect(grant.json().message).toBe('Only a user holding the All rule (cnv) can grant it');
    const own = await roleIdByName(manager, 'role-user');
    expect((await call('PATCH', `/api/roles/${own}`, manager, { rules: ['cnv:roles', 'cnv'] })).statusCode).toBe(403);
    const rootRole = await roleIdByName(manager, 'role-root');
    expect((await call('PATCH', `/api/roles/${rootRole}`, manager, { name: 'Mine' })).statusCode).toBe(403);
    const fine = await call('POST', '/api/roles', manager, { name: 'Brands', rules: ['cnv:brands', 'cnv:regions'] });
    expect(fine.statusCode).toBe(201);
  });
});

describe('the subset rule (issue 9)', () => {
  it('lets a holder of cnv:roles grant only rules it holds, and change or delete only roles within them', async () => {
    const admin = await t.tokenFor(['cnv'], { username: 'root' });
    const manager = await t.tokenFor(['cnv:roles', 'cnv:brands'], { username: 'manager' });
    const wide = await call('POST', '/api/roles', manager, { name: 'Everything', rules: ['cnv:brands', 'cnv:clouds'] });
    expect(wide.statusCode).toBe(403);
    expect(wide.json().message).toBe('You cannot grant these rules: it needs rules you do not hold yourself (Clouds)');
    // Not through its own role either.
    const own = await roleIdByName(manager, 'role-manager');
    expect(
      (await call('PATCH', `/api/roles/${own}`, manager, { rules: ['cnv:roles', 'cnv:servers'] })).statusCode,
    ).toBe(403);
    const clouds = (await call('POST', '/api/roles', admin, { name: 'Clouds', rules: ['cnv:clouds'] })).json().data._id;
    expect((await call('PATCH', `/api/roles/${clouds}`, manager, { name: 'Mine now' })).statusCode).toBe(403);
    expect((await call('DELETE', `/api/roles/${clouds}`, manager)).statusCode).toBe(403);
    const brands = await call('POST', '/api/roles', manager, { name: 'Brands', rules: ['cnv:brands'] });
    expect(brands.statusCode).toBe(201);
    expect((await call('DELETE', `/api/roles/${brands.json().data._id}`, manager)).statusCode).toBe(200);
  });
});

describe('role audit', () => {
  it('records create, update and delete with the rules in the diff', async () => {
    const h = await t.tokenFor(['cnv:roles', 'cnv:brands', 'cnv:clouds']);
    const id = (await call('POST', '/api/roles', h, { name: 'One', rules: ['cnv:brands'] })).json().data._id;
    await call('PATCH', `/api/roles/${id}`, h, { rules: ['cnv:brands', 'cnv:clouds'] });
    await call('DELETE', `/api/roles/${id}`, h);
    const log = (await call('GET', `/api/audit-log?entity=roles&entityId=${id}`, await t.tokenFor(['cnv']))).json()
      .data;
    expect(log.items.map((e: { action: string }) => e.action)).toEqual(['delete', 'update', 'create']);
    expect(log.items[1].diff).toEqual({ rules: { before: ['cnv:brands'], after: ['cnv:brands', 'cnv:clouds'] } });
    expect(log.items[0].diff).toEqual({
      name: { before: 'One', after: null },
      rules: { before: ['cnv:brands', 'cnv:clouds'], after: null },
    });
  });
});
