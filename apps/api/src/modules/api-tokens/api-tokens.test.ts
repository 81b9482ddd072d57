import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiTokens, auditLog } from '../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { effectiveTokenRules } from './api-tokens.service.ts';
import { tokenMayCall } from './token-limits.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

const auth = (h: string) => ({ authorization: h });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function createToken(session: string, body: Record<string, unknown>) {
  return t.inject({ method: 'POST', url: '/auth/tokens', headers: auth(session), payload: body });
}
async function newToken(session: string, rules: string[], name = 'ci') {
  const res = await createToken(session, { name, rules, expiresInDays: 30 });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { token: string; apiToken: { _id: string } };
}
async function setRoleRules(username: string, rules: string[]) {
  const role = (await t.c.repos.roles.findByName(`role-${username}`))!;
  await t.c.repos.roles.update(role.id, { rules });
}

describe('effective rules', () => {
  it('are the token rules the owner holds; a cnv token follows its owner', () => {
    expect(effectiveTokenRules(['cnv:brands', 'cnv:domains'], ['cnv:brands'])).toEqual(['cnv:brands']);
    expect(effectiveTokenRules(['cnv:brands'], ['cnv'])).toEqual(['cnv:brands']);
    expect(effectiveTokenRules(['cnv'], ['cnv'])).toEqual(['cnv']);
    expect(effectiveTokenRules(['cnv'], ['cnv:servers', 'cnv:brands'])).toEqual(['cnv:brands', 'cnv:servers']);
    expect(effectiveTokenRules(['cnv:brands'], [])).toEqual([]);
  });
});

describe('personal API tokens', () => {
  it('are shown once, stored hashed, listed with their last use and address', async () => {
    const session = await t.tokenFor(['cnv:brands'], { username: 'ana' });
    const { token, apiToken } = await newToken(session, ['cnv:brands'], 'deploy');
    expect(token).toMatch(/^fdt_[0-9a-f]{64}$/);
    const rows = await t.c.database.db.select().from(apiTokens);
    expect(rows[0]!.tokenHash).not.toContain(token.slice(4));
    expect(JSON.stringify(rows)).not.toContain(token);

    const call = await t.inject({
      method: 'GET',
      url: '/api/brands',
      headers: bearer(token),
      remoteAddress: '10.7.7.7',
    });
    expect(call.statusCode).toBe(200);
    const list = await t.inject({ method: 'GET', url: '/auth/tokens', headers: auth(session) });
    expect(list.body).not.toContain(token);
    expect(list.json().data).toEqual([
      expect.objectContaining({
        _id: apiToken._id,
        name: 'deploy',
        rules: ['cnv:brands'],
        effectiveRules: ['cnv:brands'],
        lastUsedIp: '10.7.7.7',
        lastUsedAt: expect.any(String),
        status: 'active',
      }),
    ]);
  });

  it('never get a rule their owner does not hold', async () => {
    const session = await t.tokenFor(['cnv:brands', 'cnv:users']);
    for (const rules of [['cnv:domains'], ['cnv'], ['cnv:brands', 'cnv:servers']]) {
      const res = await createToken(session, { name: 'x', rules, expiresInDays: 7 });
      expect(res.statusCode, String(rules)).toBe(403);
      expect(res.json().message).toMatch(/^You cannot give a token rules you do not hold yourself/);
    }
    const none = await createToken(session, { name: 'x', rules: [], expiresInDays: 7 });
    expect(none.statusCode).toBe(400);
    expect(none.json().fields.rules).toBe('Choose at least one rule');
    expect((await t.c.database.db.select().from(apiTokens)).length).toBe(0);
  });

  it('lose what their owner loses, on the next request', async () => {
    const session = await t.tokenFor(['cnv:brands', 'cnv:domains'], { username: 'lou' });
    const { token } = await newToken(session, ['cnv:brands', 'cnv:domains']);
    expect((await t.inject({ method: 'GET', url: '/api/domains', headers: bearer(token) })).statusCode).toBe(200);
    await setRoleRules('lou', ['cnv:brands']);
    expect((await t.inject({ method: 'GET', url: '/api/domains', headers: bearer(token) })).statusCode).toBe(403);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode).toBe(200);

    // A cnv token of an owner who loses cnv keeps only what the owner keeps.
    const admin = await t.tokenFor(['cnv'], { username: 'ada' });
    const { token: all } = await newToken(admin, ['cnv']);
    expect((await t.inject({ method: 'GET', url: '/api/servers', headers: bearer(all) })).statusCode).toBe(200);
    await setRoleRules('ada', ['cnv:brands']);
    expect((await t.inject({ method: 'GET', url: '/api/servers', headers: bearer(all) })).statusCode).toBe(403);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(all) })).statusCode).toBe(200);

    // An owner deactivated: the token is refused.
    const lou = (await t.c.repos.users.findByUsername('lou'))!;
    await t.c.repos.users.update(lou.id, { status: 'inactive' });
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode).toBe(401);
  });

  it('expire, and have no expiry only when a role allows it', async () => {
    const session = await t.tokenFor(['cnv:brands'], { username: 'eve' });
    const forever = await createToken(session, { name: 'x', rules: ['cnv:brands'], expiresInDays: null });
    expect(forever.statusCode).toBe(400);
    expect(forever.json().fields.expiresInDays).toBe('None of your roles allows a token without an expiry');
    const role = (await t.c.repos.roles.findByName('role-eve'))!;
    await t.c.repos.roles.update(role.id, { tokensWithoutExpiry: true });
    const allowed = await createToken(session, { name: 'x', rules: ['cnv:brands'], expiresInDays: null });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json().data.apiToken.expiresAt).toBeNull();

    const { token, apiToken } = await newToken(session, ['cnv:brands']);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode).toBe(200);
    // As time would: the expiry passes.
    await t.c.database.db
      .update(apiTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiTokens.id, apiToken._id));
    const res = await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_token');
    const list = (await t.inject({ method: 'GET', url: '/auth/tokens', headers: auth(session) })).json().data;
    expect(list.find((x: { _id: string }) => x._id === apiToken._id).status).toBe('expired');
  });

  it('are revoked at once', async () => {
    const session = await t.tokenFor(['cnv:brands']);
    const { token, apiToken } = await newToken(session, ['cnv:brands']);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode).toBe(200);
    const del = await t.inject({ method: 'DELETE', url: `/auth/tokens/${apiToken._id}`, headers: auth(session) });
    expect(del.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: '/auth/tokens', headers: auth(session) })).json().data).toEqual([]);
    // Someone else's token is not found.
    const other = await t.tokenFor(['cnv:brands']);
    const { apiToken: theirs } = await newToken(other, ['cnv:brands']);
    expect(
      (await t.inject({ method: 'DELETE', url: `/auth/tokens/${theirs._id}`, headers: auth(session) })).statusCode,
    ).toBe(404);
  });

  it('can never create tokens, change users or roles, end sessions, or reveal secrets', async () => {
    const session = await t.tokenFor(['cnv'], { username: 'root2' });
    const { token } = await newToken(session, ['cnv']);
    const cloud = await t.inject({
      method: 'POST',
      url: '/api/clouds',
      headers: auth(session),
      payload: { email: 'c@x.test', apiKey: 'secret-api-key-1' },
    });
    const id = cloud.json().data?._id ?? '00000000-0000-4000-8000-000000000000';
    const me = (await t.c.repos.users.findByUsername('root2'))!;
    const never: [string, string, unknown?][] = [
      ['POST', '/auth/tokens', { name: 'more', rules: ['cnv'], expiresInDays: 7 }],
      ['GET', '/auth/tokens'],
      ['GET', '/auth/sessions'],
      ['POST', '/auth/two-factor/setup'],
      ['POST', '/auth/logout'],
      ['POST', '/api/users', { username: 'x', name: 'x', email: 'x@x.test', password: 'long password 1', roles: [] }],
      ['PATCH', `/api/users/${me.id}`, { name: 'changed' }],
      ['DELETE', `/api/users/${me.id}`],
      ['POST', '/api/roles', { name: 'r', rules: [] }],
      ['POST', `/api/users/${me.id}/two-factor/reset`],
      ['POST', `/api/users/${me.id}/identity-link`],
      ['POST', `/api/users/${me.id}/identities`, { subject: 'someone' }],
      ['GET', '/api/sessions'],
      ['POST', `/api/clouds/${id}/reveal`, { field: 'apiKey' }],
    ];
    for (const [method, url, payload] of never) {
      const res = await t.inject({ method: method as 'GET', url, headers: bearer(token), payload: payload as object });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'token_forbidden',
        message: 'API tokens cannot do this: sign in as a person',
      });
    }
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: bearer(token) })).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/users', headers: bearer(token) })).statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: `/api/clouds/${id}`, headers: bearer(token) })).body).not.toContain(
      'secret-api-key-1',
    );
    expect((await t.inject({ method: 'GET', url: '/auth/tokens', headers: auth(session) })).json().data).toHaveLength(
      1,
    );
  });

  it('are audited under their owner with the token name', async () => {
    const session = await t.tokenFor(['cnv:brands'], { username: 'aud' });
    const { token } = await newToken(session, ['cnv:brands'], 'nightly sync');
    const res = await t.inject({
      method: 'POST',
      url: '/api/brands',
      headers: bearer(token),
      payload: { name: 'By token' },
    });
    expect(res.statusCode).toBe(201);
    const [entry] = await t.c.database.db.select().from(auditLog).where(eq(auditLog.entityId, res.json().data._id));
    expect(entry).toMatchObject({ username: 'aud', tokenName: 'nightly sync', action: 'create' });
    const owner = (await t.c.repos.users.findByUsername('aud'))!;
    expect(entry!.userId).toBe(owner.id);
  });

  it('are described in the OpenAPI document, which a token may read', async () => {
    const { token } = await newToken(await t.tokenFor(['cnv:brands']), ['cnv:brands']);
    const doc = (await t.inject({ method: 'GET', url: '/api/docs/json', headers: bearer(token) })).json();
    expect(doc.components.securitySchemes.apiToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.apiToken.description).toMatch(/personal API token/);
    expect(doc.security).toContainEqual({ apiToken: [] });
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/auth/tokens', '/auth/tokens/{id}']));
  });

  it('knows which routes no token may call', () => {
    expect(tokenMayCall('GET', '/auth/me')).toBe(true);
    expect(tokenMayCall('GET', '/api/users')).toBe(true);
    expect(tokenMayCall('GET', '/api/roles/:id')).toBe(true);
    expect(tokenMayCall('PUT', '/api/roles/:id')).toBe(false);
    expect(tokenMayCall('POST', '/api/servers/:id/reveal')).toBe(false);
    expect(tokenMayCall('DELETE', '/api/sessions/:id')).toBe(false);
    expect(tokenMayCall('POST', '/api/brands')).toBe(true);
  });
});

describe('a token has its own rate limit', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ RATE_LIMIT_TOKEN_PER_MINUTE: '3' });
  });
  afterAll(async () => limited?.close());

  it('refuses past its limit while its owner signed in goes on', async () => {
    const session = await limited.tokenFor(['cnv:brands']);
    const res = await limited.inject({
      method: 'POST',
      url: '/auth/tokens',
      headers: auth(session),
      payload: { name: 'x', rules: ['cnv:brands'], expiresInDays: 1 },
    });
    const token = res.json().data.token as string;
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) {
      codes.push((await limited.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode);
    }
    expect(codes).toEqual([200, 200, 200, 429]);
    const last = await limited.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) });
    expect(last.json().message).toMatch(/^Too many requests with this API token\. Try again in \d+ seconds?\.$/);
    expect((await limited.inject({ method: 'GET', url: '/api/brands', headers: auth(session) })).statusCode).toBe(200);
  });
});

describe('a script with a token', () => {
  it('creates, reads and deletes over HTTP as curl would', async () => {
    const session = await t.tokenFor(['cnv:brands']);
    const { token } = await newToken(session, ['cnv:brands'], 'script');
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const h = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = await fetch(`${base}/api/brands`, { method: 'POST', headers: h, body: '{"name":"Scripted"}' });
      expect(created.status).toBe(201);
      const { data } = (await created.json()) as { data: { _id: string } };
      const list = (await (await fetch(`${base}/api/brands?search=Scripted`, { headers: h })).json()) as {
        data: { itemsCount: number };
      };
      expect(list.data.itemsCount).toBe(1);
      const del = await fetch(`${base}/api/brands/${data._id}`, {
        method: 'DELETE',
        headers: { authorization: h.authorization },
      });
      expect(del.status).toBeLessThan(300);
      const bad = await fetch(`${base}/api/brands`, { headers: { authorization: 'Bearer fdt_' + '0'.repeat(64) } });
      expect(bad.status).toBe(401);
    } finally {
      await t.app.server.close();
    }
  });
});

describe('tokens follow their owner (issue 42)', () => {
  async function ownerWithToken(username: string) {
    const session = await t.tokenFor(['cnv:brands'], { username });
    const { token, apiToken } = await newToken(session, ['cnv:brands']);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode).toBe(200);
    const user = (await t.c.repos.users.findByUsername(username))!;
    return { session, token, apiToken, user };
  }

  it("are revoked when an administrator resets the owner's password", async () => {
    const { token, user } = await ownerWithToken('pat');
    const admin = await t.tokenFor(['cnv']);
    const res = await t.inject({
      method: 'PATCH',
      url: `/api/users/${user.id}`,
      headers: auth(admin),
      payload: { password: 'a brand new password' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode).toBe(401);
    const [entry] = await t.c.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.entityId, user.id))
      .then((rows) => rows.filter((r) => r.action === 'update'));
    expect(entry!.details).toMatchObject({ apiTokensRevoked: 1 });
  });

  it("are revoked when an administrator resets the owner's two-factor", async () => {
    const { token, user } = await ownerWithToken('tia');
    await t.c.repos.twoFactor.putPending(user.id, t.c.secrets.encrypt('JBSWY3DPEHPK3PXP'));
    await t.c.database.db.transaction((tx) => t.c.repos.twoFactor.enable(user.id, 1, tx));
    const admin = await t.tokenFor(['cnv']);
    const res = await t.inject({ method: 'POST', url: `/api/users/${user.id}/two-factor/reset`, headers: auth(admin) });
    expect(res.statusCode, res.body).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode).toBe(401);
  });

  it('are suspended while a role requires two-factor the owner has not set up', async () => {
    const { token, user } = await ownerWithToken('rex');
    const role = (await t.c.repos.roles.findByName('role-rex'))!;
    await t.c.repos.roles.update(role.id, { requireTwoFactor: true });
    const res = await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'two_factor_setup_required' });
    expect(res.json().message).toMatch(/two-factor/);
    // Once the owner has set two-factor up, the token works again.
    await t.c.repos.twoFactor.putPending(user.id, t.c.secrets.encrypt('JBSWY3DPEHPK3PXP'));
    await t.c.database.db.transaction((tx) => t.c.repos.twoFactor.enable(user.id, 1, tx));
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode).toBe(200);
  });

  it("are listed and revoked by an administrator on the user's page, audited", async () => {
    const { token, apiToken, user } = await ownerWithToken('uma');
    const admin = await t.tokenFor(['cnv:users', 'cnv:brands'], { username: 'boss' });
    const list = await t.inject({ method: 'GET', url: `/api/users/${user.id}/tokens`, headers: auth(admin) });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data).toEqual([expect.objectContaining({ _id: apiToken._id, name: 'ci', status: 'active' })]);
    expect(list.body).not.toContain(token);

    const bad = await t.inject({ method: 'DELETE', url: `/api/users/${user.id}/tokens/nope`, headers: auth(admin) });
    expect(bad.statusCode).toBe(400);
    const other = await ownerWithToken('vic');
    const wrongUser = await t.inject({
      method: 'DELETE',
      url: `/api/users/${user.id}/tokens/${other.apiToken._id}`,
      headers: auth(admin),
    });
    expect(wrongUser.statusCode).toBe(404);

    const del = await t.inject({
      method: 'DELETE',
      url: `/api/users/${user.id}/tokens/${apiToken._id}`,
      headers: auth(admin),
    });
    expect(del.statusCode, del.body).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: bearer(token) })).statusCode).toBe(401);
    expect(
      (await t.inject({ method: 'GET', url: `/api/users/${user.id}/tokens`, headers: auth(admin) })).json().data,
    ).toEqual([]);
    const entries = await t.c.database.db.select().from(auditLog).where(eq(auditLog.entityId, apiToken._id));
    const entry = entries.find((e) => e.action === 'delete');
    expect(entry).toMatchObject({ username: 'boss', entity: 'api_tokens' });
    expect(entry!.details).toMatchObject({ ownerId: user.id, owner: 'uma' });
  });

  it('are never listed or revoked by an administrator lacking a rule of the owner, nor by a token', async () => {
    const { apiToken, user } = await ownerWithToken('wes');
    const weak = await t.tokenFor(['cnv:users']);
    for (const [method, url] of [
      ['GET', `/api/users/${user.id}/tokens`],
      ['DELETE', `/api/users/${user.id}/tokens/${apiToken._id}`],
    ] as const) {
      const res = await t.inject({ method, url, headers: auth(weak) });
      expect(res.statusCode, url).toBe(403);
      expect(res.json().message).toMatch(/rules you do not hold yourself/);
    }
    const none = await t.tokenFor(['cnv:brands']);
    expect(
      (await t.inject({ method: 'GET', url: `/api/users/${user.id}/tokens`, headers: auth(none) })).statusCode,
    ).toBe(403);
    const adminSession = await t.tokenFor(['cnv']);
    const { token: adminToken } = await newToken(adminSession, ['cnv']);
    for (const [method, url] of [
      ['GET', `/api/users/${user.id}/tokens`],
      ['DELETE', `/api/users/${user.id}/tokens/${apiToken._id}`],
    ] as const) {
      const res = await t.inject({ method, url, headers: bearer(adminToken) });
      expect(res.statusCode, url).toBe(403);
      expect(res.json().code).toBe('token_forbidden');
    }
    const missing = '00000000-0000-4000-8000-000000000000';
    expect(
      (await t.inject({ method: 'GET', url: `/api/users/${missing}/tokens`, headers: auth(adminSession) })).statusCode,
    ).toBe(404);
  });
});
