import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemActor } from '../../http/context.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { USER_MESSAGES } from './users.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, auth: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: auth }, payload });

let adminToken: string;
const admin = async () => (adminToken ??= await t.tokenFor(['cnv'], { username: 'root' }));
beforeEach(() => {
  adminToken = undefined as unknown as string;
});

async function makeRole(name: string, rules: string[]): Promise<string> {
  const res = await call('POST', '/api/roles', await admin(), { name, rules });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data._id;
}
const meId = async (auth: string) => (await call('GET', '/auth/me', auth)).json().data.user._id as string;
const PASSWORD = 'long enough password';
const newUser = (over: object = {}) => ({
  username: 'alice',
  name: 'Alice',
  email: 'alice@example.com',
  password: PASSWORD,
  status: 'active',
  ...over,
});

describe('/api/users CRUD', () => {
  it('creates (201) with each role once, reads, lists, updates with PUT and PATCH, deletes; never returns the password', async () => {
    const h = await t.tokenFor(['cnv:users', 'cnv:brands', 'cnv:regions']);
    const role = await makeRole('Editors', ['cnv:brands', 'cnv:regions']);
    const bodies: string[] = [];
    const created = await call('POST', '/api/users', h, newUser({ roles: [role, role] }));
    bodies.push(created.body);
    expect(created.statusCode, created.body).toBe(201);
    const u = created.json().data;
    expect(u).toEqual({
      _id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userNo: expect.any(Number),
      username: 'alice',
      name: 'Alice',
      email: 'alice@example.com',
      status: 'active',
      dateCreated: expect.any(String),
      dateLastLogin: null,
      userRoles: [{ roleId: role, role: { _id: role, name: 'Editors' } }],
    });

    const got = await call('GET', `/api/users/${u._id}`, h);
    bodies.push(got.body);
    expect(got.json().data).toEqual(u);

    const list = await call('GET', '/api/users?search=ALIC', h);
    bodies.push(list.body);
    expect(list.json().data).toEqual({ items: [u], itemsCount: 1 });

    const put = await call('PUT', `/api/users/${u._id}`, h, { name: 'Alice B' });
    bodies.push(put.body);
    expect(put.json().data).toMatchObject({ name: 'Alice B', email: 'alice@example.com', userRoles: u.userRoles });
    const patched = await call('PATCH', `/api/users/${u._id}`, h, { email: ' a@example.org ', roles: [] });
    bodies.push(patched.body);
    expect(patched.json().data).toMatchObject({ name: 'Alice B', email: 'a@example.org', userRoles: [] });

    await t.login('alice', PASSWORD);
    const afterLogin = await call('GET', `/api/users/${u._id}`, h);
    expect(afterLogin.json().data.dateLastLogin).not.toBeNull();

    for (const b of bodies) {
      expect(b).not.toContain(PASSWORD);
      expect(b).not.toContain('argon2');
      expect(b).not.toMatch(/"password/);
    }
    expect(t.logs.join('\n')).not.toContain(PASSWORD);

    expect((await call('DELETE', `/api/users/${u._id}`, h)).statusCode).toBe(200);
    const gone = await call('GET', `/api/users/${u._id}`, h);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('User not found');
  });

  it('validates with a message on each field', async () => {
    const h = await t.tokenFor(['cnv:users']);
    const empty = await call('POST', '/api/users', h, {});
    expect(empty.statusCode).toBe(400);
    expect(Object.keys(empty.json().fields).sort()).toEqual(['email', 'name', 'password', 'status', 'username']);
    expect(empty.json().fields.password).toBe('Password is required');

    const cases: [object, string, string][] = [
      [{ password: 'short' }, 'password', 'Password must be at least 10 characters'],
      [{ email: 'nope' }, 'email', 'Email must be a valid email address'],
      [{ status: 'paused' }, 'status', 'Status must be active or inactive'],
      [{ username: 'a b' }, 'username', 'Username cannot contain spaces'],
      [{ username: '   ' }, 'username', 'Username is required'],
      [{ name: 'x'.repeat(201) }, 'name', 'Name must be at most 200 characters'],
      [{ roles: ['nope'] }, 'roles.0', 'Must be a valid id'],
      [{ roles: 'x' }, 'roles', 'Roles must be a list of role ids'],
    ];
    for (const [over, field, message] of cases) {
      const res = await call('POST', '/api/users', h, newUser(over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().fields[field], JSON.stringify(res.json())).toBe(message);
    }
    const missing = '00000000-0000-4000-8000-000000000009';
    const unknownRole = await call('POST', '/api/users', h, newUser({ roles: [missing] }));
    expect(unknownRole.statusCode).toBe(400);
    expect(unknownRole.json().fields).toEqual({ roles: `Unknown role: ${missing}` });
    expect((await call('GET', '/api/users/not-a-uuid', h)).statusCode).toBe(400);
  });

  it('keeps the password when an update sends it empty, and validates a new one', async () => {
    const h = await t.tokenFor(['cnv:users']);
    const id = (await call('POST', '/api/users', h, newUser())).json().data._id;
    const kept = await call('PATCH', `/api/users/${id}`, h, { password: '', name: 'Alice' });
    expect(kept.statusCode, kept.body).toBe(200);
    await t.login('alice', PASSWORD);
    const short = await call('PUT', `/api/users/${id}`, h, { password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().fields.password).toBe('Password must be at least 10 characters');
  });

  it('refuses a duplicate username ignoring case with 409 and a field error, on create and update', async () => {
    const h = await t.tokenFor(['cnv:users']);
    await call('POST', '/api/users', h, newUser());
    const dup = await call('POST', '/api/users', h, newUser({ username: 'ALICE', email: 'other@example.com' }));
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({
      message: 'A user with this username already exists',
      fields: { username: 'A user with this username already exists' },
    });
    const bob = (await call('POST', '/api/users', h, newUser({ username: 'bob' }))).json().data;
    const upd = await call('PATCH', `/api/users/${bob._id}`, h, { username: 'Alice' });
    expect(upd.statusCode).toBe(409);
    expect((await call('GET', `/api/users/${bob._id}`, h)).json().data.username).toBe('bob');
  });
});

describe('user guards', () => {
  it('refuses to delete your own account', async () => {
    const h = await t.tokenFor(['cnv:users']);
    const res = await call('DELETE', `/api/users/${await meId(h)}`, h);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('You cannot delete your own account');
  });

  it('refuses to delete, deactivate or take cnv from the last active user holding it', async () => {
    const root = await admin();
    const rootId = await meId(root);
    const manager = await t.tokenFor(['cnv:users']);
    const plain = await makeRole('Plain', ['cnv:brands']);

    const del = await call('DELETE', `/api/users/${rootId}`, manager);
    expect(del.statusCode).toBe(409);
    expect(del.json()).toMatchObject({ message: USER_MESSAGES.deleteLastAdmin, code: 'last_admin' });
    expect(USER_MESSAGES.deleteLastAdmin).toBe('You cannot delete the last active user holding the All rule (cnv)');

    for (const who of [root, manager]) {
      const off = await call('PATCH', `/api/users/${rootId}`, who, { status: 'inactive' });
      expect(off.statusCode).toBe(409);
      expect(off.json().message).toBe('You cannot deactivate the last active user holding the All rule (cnv)');
    }
    const demote = await call('PUT', `/api/users/${rootId}`, root, { roles: [plain] });
    expect(demote.statusCode).toBe(409);
    expect(demote.json().message).toBe(
      'This change would take the All rule (cnv) from the last active user holding it',
    );
    await expect(t.c.services.users.remove(rootId, systemActor())).rejects.toMatchObject({ status: 409 });
    expect((await call('GET', '/auth/me', root)).statusCode).toBe(200);

    // With a second active administrator, the first may go; an inactive one does not count.
    const second = await t.tokenFor(['cnv'], { username: 'root2' });
    const secondId = await meId(second);
    const offSecond = await call('PATCH', `/api/users/${secondId}`, root, { status: 'inactive' });
    expect(offSecond.statusCode).toBe(200);
    expect((await call('PATCH', `/api/users/${rootId}`, root, { status: 'inactive' })).statusCode).toBe(409);
    expect((await call('PATCH', `/api/users/${secondId}`, root, { status: 'active' })).statusCode).toBe(200);
    const demoted = await call('PUT', `/api/users/${rootId}`, root, { roles: [plain] });
    expect(demoted.statusCode, demoted.body).toBe(200);
    const rootAgain = await t.login('root2', 'correct horse battery');
    expect((await call('DELETE', `/api/users/${rootId}`, rootAgain)).statusCode).toBe(200);
  });

  it('lets only a holder of cnv hand it out or manage a user holding it', async () => {
    const root = await admin();
    const rootId = await meId(root);
    await t.tokenFor(['cnv'], { username: 'root2' });
    const manager = await t.tokenFor(['cnv:users', 'cnv:brands']);
    const adminRole = await makeRole('Admins', ['cnv']);
    const plain = await makeRole('Plain', ['cnv:brands']);

    const grant = await call('POST', '/api/users', manager, newUser({ roles: [adminRole] }));
    expect(grant.statusCode).toBe(403);
    expect(grant.json().message).toBe('Only a user holding the All rule (cnv) can give a role holding it');
    const takeover = await call('PATCH', `/api/users/${rootId}`, manager, { password: 'taken over password' });
    expect(takeover.statusCode).toBe(403);
    expect((await call('DELETE', `/api/users/${rootId}`, manager)).statusCode).toBe(403);

    const ok = await call('POST', '/api/users', manager, newUser({ roles: [plain] }));
    expect(ok.statusCode).toBe(201);
    const up = await call('PATCH', `/api/users/${ok.json().data._id}`, manager, { roles: [adminRole] });
    expect(up.statusCode).toBe(403);
    expect((await call('PATCH', `/api/users/${ok.json().data._id}`, root, { roles: [adminRole] })).statusCode).toBe(
      200,
    );
  });
});

describe('the subset rule (issue 9)', () => {
  it('lets a holder of cnv:users grant only the rules it holds, and manage only users within its rules', async () => {
    const manager = await t.tokenFor(['cnv:users', 'cnv:brands'], { username: 'manager' });
    const managerId = await meId(manager);
    const clouds = await makeRole('Cloud keepers', ['cnv:clouds']);
    const brands = await makeRole('Brand keepers', ['cnv:brands']);

    // No climbing: not to itself, not through a new user.
    const climb = await call('PATCH', `/api/users/${managerId}`, manager, { roles: [clouds] });
    expect(climb.statusCode, climb.body).toBe(403);
    expect(climb.json().message).toBe('You cannot give these roles: it needs rules you do not hold yourself (Clouds)');
    expect((await call('POST', '/api/users', manager, newUser({ roles: [clouds] }))).statusCode).toBe(403);
    expect((await call('POST', '/api/users', manager, newUser({ roles: [brands] }))).statusCode).toBe(201);

    // A user holding a rule the manager lacks is out of reach: no edit, no password, no delete.
    await t.tokenFor(['cnv:clouds'], { username: 'carol', password: 'carol password 1' });
    const carolId = (await call('GET', '/api/users?search=carol', await admin())).json().data.items[0]._id as string;
    for (const patch of [{ password: 'taken over password' }, { name: 'Renamed' }, { status: 'inactive' }]) {
      const res = await call('PATCH', `/api/users/${carolId}`, manager, patch);
      expect(res.statusCode, JSON.stringify(patch)).toBe(403);
      expect(res.json().message).toBe('You cannot change this user: it needs rules you do not hold yourself (Clouds)');
    }
    expect((await call('DELETE', `/api/users/${carolId}`, manager)).statusCode).toBe(403);
    await t.login('carol', 'carol password 1');

    // Within its rules it manages freely.
    const bob = await t.tokenFor(['cnv:brands'], { username: 'bob' });
    const bobId = await meId(bob);
    expect((await call('PATCH', `/api/users/${bobId}`, manager, { password: 'new bob password' })).statusCode).toBe(
      200,
    );
    expect((await call('DELETE', `/api/users/${bobId}`, manager)).statusCode).toBe(200);
  });

  it('refuses to let a user deactivate themselves, whatever the case of the id', async () => {
    const root = await admin();
    await t.tokenFor(['cnv'], { username: 'root2' });
    const rootId = await meId(root);
    for (const id of [rootId, rootId.toUpperCase()]) {
      const res = await call('PATCH', `/api/users/${id}`, root, { status: 'inactive' });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ code: 'self_deactivate', message: USER_MESSAGES.deactivateSelf });
    }
    expect((await call('GET', '/auth/me', root)).statusCode).toBe(200);
    expect((await call('PATCH', `/api/users/${rootId}`, root, { name: 'Still me' })).statusCode).toBe(200);
  });
});

describe('sessions', () => {
  it('end when the user is deactivated or their password changes, and not on other edits', async () => {
    const h = await t.tokenFor(['cnv:users', 'cnv:brands']);
    const bob = await t.tokenFor(['cnv:brands'], { username: 'bob', password: 'bob password 1' });
    const bobId = await meId(bob);
    const bob2 = await t.login('bob', 'bob password 1');

    expect((await call('PATCH', `/api/users/${bobId}`, h, { name: 'Bobby' })).statusCode).toBe(200);
    expect((await call('GET', '/api/brands', bob)).statusCode).toBe(200);

    expect((await call('PATCH', `/api/users/${bobId}`, h, { password: 'bob password 2' })).statusCode).toBe(200);
    for (const s of [bob, bob2]) expect((await call('GET', '/api/brands', s)).statusCode).toBe(401);
    const fresh = await t.login('bob', 'bob password 2');
    expect((await call('GET', '/api/brands', fresh)).statusCode).toBe(200);

    expect((await call('PATCH', `/api/users/${bobId}`, h, { status: 'inactive' })).statusCode).toBe(200);
    expect((await call('GET', '/api/brands', fresh)).statusCode).toBe(401);
    expect((await call('PATCH', `/api/users/${bobId}`, h, { status: 'active' })).statusCode).toBe(200);
    // Reactivating does not bring old sessions back.
    expect((await call('GET', '/api/brands', fresh)).statusCode).toBe(401);
    await t.login('bob', 'bob password 2');
  });
});

describe('user audit', () => {
  it('records create, update and delete; a password change shows as [redacted] and no hash is stored', async () => {
    const h = await t.tokenFor(['cnv:users', 'cnv:brands']);
    const role = await makeRole('Editors', ['cnv:brands']);
    const id = (await call('POST', '/api/users', h, newUser({ roles: [role] }))).json().data._id;
    await call('PATCH', `/api/users/${id}`, h, { name: 'Alice B', password: 'another long password' });
    await call('DELETE', `/api/users/${id}`, h);
    const log = await call('GET', `/api/audit-log?entity=users&entityId=${id}`, await admin());
    const items = log.json().data.items;
    expect(items.map((e: { action: string }) => e.action)).toEqual(['delete', 'update', 'create']);
    expect(items[1].diff).toEqual({
      name: { before: 'Alice', after: 'Alice B' },
      password: { before: '[redacted]', after: '[redacted]' },
    });
    expect(items[2].diff).toMatchObject({
      username: { before: null, after: 'alice' },
      roles: { before: null, after: ['Editors'] },
      password: { before: null, after: '[redacted]' },
    });
    expect(log.body).not.toContain('argon2');
    expect(log.body).not.toContain(PASSWORD);
    expect(log.body).not.toContain('another long password');
  });
});
