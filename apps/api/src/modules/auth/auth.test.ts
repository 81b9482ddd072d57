import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { sessionCacheOf } from '../../lib/session-cache.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    LOGIN_FREE_ATTEMPTS: '3',
    LOGIN_ADDRESS_MAX_FAILURES: '6',
    // Long enough that no delay runs out while a test runs.
    LOGIN_DELAY_SECONDS: '120',
    SESSION_IDLE_MINUTES: '30',
    SESSION_TTL_HOURS: '1',
  });
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

const login = (username: string, password: string, ip = '10.1.1.1') =>
  t.inject({ method: 'POST', url: '/auth/login', payload: { username, password }, remoteAddress: ip });

describe('sign-in', () => {
  it('answers with a Bearer token in the Authorization header and the user in the body', async () => {
    await t.tokenFor(['cnv:brands'], { username: 'alice', password: 'alice-password-1' });
    const res = await login('alice', 'alice-password-1');
    expect(res.statusCode).toBe(200);
    expect(res.headers.authorization).toMatch(/^Bearer [0-9a-f]{64}$/);
    expect(String(res.headers['access-control-expose-headers'])).toContain('Authorization');
    const body = res.json();
    expect(body.data.user.username).toBe('alice');
    expect(body.data.user.dateLastLogin).not.toBeNull();
    expect(JSON.stringify(body)).not.toContain('password');

    const me = await t.inject({
      method: 'GET',
      url: '/auth/me',
      headers: { authorization: res.headers.authorization },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.rules).toEqual(['cnv:brands']);
  });

  it('stores only a hash of the token', async () => {
    const header = await t.tokenFor(['cnv']);
    const token = header.replace('Bearer ', '');
    const { sessions } = await import('../../db/schema/index.ts');
    const rows = await t.c.database.db.select().from(sessions);
    expect(rows.some((r) => r.tokenHash === token)).toBe(false);
    expect(rows[0]?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a wrong password, an unknown user and an inactive user with the same 401 message', async () => {
    await t.tokenFor(['cnv'], { username: 'bob', password: 'bob-password-1' });
    const passwordHash = await hashPassword('carol-password');
    await t.c.repos.users.insert({
      username: 'carol',
      name: 'Carol',
      email: 'c@x.test',
      passwordHash,
      status: 'inactive',
    });
    for (const [u, p] of [
      ['bob', 'wrong-password'],
      ['nobody', 'whatever-password'],
      ['carol', 'carol-password'],
    ] as const) {
      const res = await login(u, p, `10.0.0.${u.length}`);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ message: 'Invalid username or password', code: 'invalid_credentials' });
      expect(res.json().requestId).toBeTruthy();
    }
  });

  it('validates the body: 400 with per-field errors', async () => {
    const res = await t.inject({ method: 'POST', url: '/auth/login', payload: { username: '' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields).toMatchObject({ username: expect.any(String), password: expect.any(String) });
    const bad = await t.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{nope',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBeTruthy();
  });

  it('throttles the (username, address) pair with 429 and Retry-After, without locking the user out elsewhere', async () => {
    await t.tokenFor(['cnv'], { username: 'dave', password: 'dave-password-1' });
    for (let i = 0; i < 3; i++) expect((await login('dave', 'wrong', '10.2.0.1')).statusCode).toBe(401);
    const res = await login('dave', 'dave-password-1', '10.2.0.1');
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toMatch(/^Too many failed sign-in attempts\. Try again in \d+ seconds?\.$/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // Someone else's wrong guesses do not lock the real user out from their own address.
    expect((await login('dave', 'dave-password-1', '10.2.0.99')).statusCode).toBe(200);
  });

  it('a success resets the pair: the free attempts start again', async () => {
    await t.tokenFor(['cnv'], { username: 'fred', password: 'fred-password-1' });
    for (let i = 0; i < 2; i++) expect((await login('fred', 'wrong', '10.4.0.1')).statusCode).toBe(401);
    expect((await login('fred', 'fred-password-1', '10.4.0.1')).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await login('fred', 'wrong', '10.4.0.1')).statusCode).toBe(401);
    expect((await login('fred', 'wrong', '10.4.0.1')).statusCode).toBe(429);
  });

  it('counts attempts before the password check: a concurrent burst gets at most the limit checked', async () => {
    await t.tokenFor(['cnv'], { username: 'gina', password: 'gina-password-1' });
    const results = await Promise.all(Array.from({ length: 60 }, () => login('gina', 'wrong-guess', '10.5.0.1')));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401)).toHaveLength(3);
    expect(codes.filter((c) => c === 429)).toHaveLength(57);
    const { auditLog } = await import('../../db/schema/index.ts');
    const rows = await t.c.database.db.select().from(auditLog);
    expect(rows.filter((e) => e.action === 'login_failed')).toHaveLength(3);
  });

  it('throttles failures from one address across usernames (looser than the pair limit)', async () => {
    for (let i = 0; i < 6; i++) expect((await login(`ghost${i}`, 'wrong', '10.3.0.1')).statusCode).toBe(401);
    expect((await login('ghost9', 'wrong', '10.3.0.1')).statusCode).toBe(429);
  });

  it('audits an unknown username as a short hash, never as typed', async () => {
    expect((await login('hunter2-my-password', 'x', '10.7.0.1')).statusCode).toBe(401);
    const { auditLog } = await import('../../db/schema/index.ts');
    const rows = await t.c.database.db.select().from(auditLog);
    expect(JSON.stringify(rows)).not.toContain('hunter2');
    expect(rows.find((r) => r.action === 'login_failed')?.username).toMatch(/^unknown#[0-9a-f]{12}$/);
  });

  it('refuses a sign-in body over a few KB and JSON nested too deep, with 4xx and a message', async () => {
    const big = await t.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { username: 'a', password: 'x'.repeat(8 * 1024) },
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().message).toBeTruthy();
    const deep = await t.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: `${'['.repeat(40)}${']'.repeat(40)}`,
    });
    expect(deep.statusCode).toBe(400);
    expect(deep.json()).toMatchObject({ code: 'json_too_deep' });
    // Past the sign-in, the API's default limit still refuses bodies far beyond any form.
    const header = await t.tokenFor(['cnv']);
    const huge = await t.inject({
      method: 'POST',
      url: '/api/brands',
      headers: { authorization: header, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(huge.statusCode).toBe(413);
  });

  it('logout revokes the token', async () => {
    const header = await t.tokenFor(['cnv']);
    const out = await t.inject({ method: 'POST', url: '/auth/logout', headers: { authorization: header } });
    expect(out.statusCode).toBe(200);
    const me = await t.inject({ method: 'GET', url: '/auth/me', headers: { authorization: header } });
    expect(me.statusCode).toBe(401);
  });

  it('expires sessions past the absolute limit and past the idle limit', async () => {
    const { sessions } = await import('../../db/schema/index.ts');
    const a = await t.tokenFor(['cnv']);
    await t.c.database.db.update(sessions).set({ expiresAt: new Date(Date.now() - 1000) });
    // Written directly, as another process would: wait for its notification to reach this one.
    await sessionCacheOf(t.c.database).sync();
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: { authorization: a } })).statusCode).toBe(401);

    const b = await t.tokenFor(['cnv']);
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: { authorization: b } })).statusCode).toBe(200);
    await t.c.database.db.update(sessions).set({ lastUsedAt: new Date(Date.now() - 31 * 60_000) });
    await sessionCacheOf(t.c.database).sync();
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: { authorization: b } })).statusCode).toBe(401);
  });

  it('ends sessions when the user is deactivated', async () => {
    const { users } = await import('../../db/schema/index.ts');
    const header = await t.tokenFor(['cnv']);
    await t.c.database.db.update(users).set({ status: 'inactive' });
    await sessionCacheOf(t.c.database).sync();
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: { authorization: header } })).statusCode).toBe(
      401,
    );
  });

  it('rejects malformed and unknown tokens', async () => {
    for (const authorization of ['Bearer nope', `Bearer ${'a'.repeat(64)}`, 'Basic abc']) {
      const res = await t.inject({ method: 'GET', url: '/auth/me', headers: { authorization } });
      expect(res.statusCode).toBe(401);
    }
  });

  it('writes audit entries for sign-in and sign-out', async () => {
    const header = await t.tokenFor(['cnv'], { username: 'erin' });
    await t.inject({ method: 'POST', url: '/auth/logout', headers: { authorization: header } });
    const admin = await t.tokenFor(['cnv']);
    const res = await t.inject({
      method: 'GET',
      url: '/api/audit-log?entity=sessions',
      headers: { authorization: admin },
    });
    const actions = res
      .json()
      .data.items.filter((e: { username: string }) => e.username === 'erin')
      .map((e: { action: string }) => e.action);
    expect(actions).toEqual(['logout', 'login']);
  });

  it('exposes public info with the demo flag and health checks without a token', async () => {
    expect((await t.inject({ method: 'GET', url: '/auth/info' })).json()).toEqual({ data: { demo: false } });
    expect((await t.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await t.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
  });
});
