import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { createContainer } from '../../container.ts';
import { openPostgres } from '../../db/client.ts';
import { sessionCacheOf } from '../../lib/session-cache.ts';
import { TEST_RATE_LIMITS, createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(async () => t?.close());
beforeEach(async () => {
  await t.reset();
  vi.restoreAllMocks();
});

const me = (authorization: string) => t.inject({ method: 'GET', url: '/auth/me', headers: { authorization } });
const call = (method: 'GET' | 'PATCH', url: string, authorization: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization }, payload });
const userIdOf = async (authorization: string) => (await me(authorization)).json().data.user._id as string;

describe('sessions served from memory', () => {
  it('checks a token against the database once, then serves it from memory', async () => {
    const h = await t.tokenFor(['cnv']);
    const spy = vi.spyOn(t.c.repos.auth, 'findActive');
    for (let i = 0; i < 5; i++) expect((await me(h)).statusCode).toBe(200);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('checks a token read by many requests at once against the database once, and again after a clear', async () => {
    const h = await t.tokenFor(['cnv']);
    const spy = vi.spyOn(t.c.repos.auth, 'findActive');
    const burst = async () =>
      expect(new Set((await Promise.all(Array.from({ length: 20 }, () => me(h)))).map((r) => r.statusCode))).toEqual(
        new Set([200]),
      );
    await burst();
    expect(spy).toHaveBeenCalledTimes(1);
    // A clear (any change that can end a session) is not answered by a check that started before it.
    sessionCacheOf(t.c.database).invalidate();
    await burst();
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('refuses a signed-out token at once', async () => {
    const h = await t.tokenFor(['cnv']);
    expect((await me(h)).statusCode).toBe(200);
    expect((await t.inject({ method: 'POST', url: '/auth/logout', headers: { authorization: h } })).statusCode).toBe(
      200,
    );
    expect((await me(h)).statusCode).toBe(401);
  });

  it('refuses at once the sessions of a user deactivated or given a new password, and applies new roles at once', async () => {
    const admin = await t.tokenFor(['cnv']);
    const a = await t.tokenFor(['cnv:domains'], { username: 'anna' });
    const b = await t.tokenFor(['cnv:domains'], { username: 'bert' });
    const c = await t.tokenFor(['cnv:domains'], { username: 'carl' });
    for (const h of [a, b, c]) expect((await call('GET', '/api/domains', h)).statusCode).toBe(200);

    expect((await call('PATCH', `/api/users/${await userIdOf(a)}`, admin, { status: 'inactive' })).statusCode).toBe(
      200,
    );
    expect((await call('GET', '/api/domains', a)).statusCode).toBe(401);

    const res = await call('PATCH', `/api/users/${await userIdOf(b)}`, admin, { password: 'a brand new password 1' });
    expect(res.statusCode, res.body).toBe(200);
    expect((await call('GET', '/api/domains', b)).statusCode).toBe(401);

    // Carl's role loses the domains rule: the next request is refused, not served with the old rules.
    const roles = (await call('GET', '/api/roles?search=carl', admin)).json().data.items as { _id: string }[];
    expect(roles).toHaveLength(1);
    const patched = await call('PATCH', `/api/roles/${roles[0]!._id}`, admin, { rules: ['cnv:brands'] });
    expect(patched.statusCode, patched.body).toBe(200);
    expect((await call('GET', '/api/domains', c)).statusCode).toBe(403);
    expect((await call('GET', '/api/brands', c)).statusCode).toBe(200);
  });

  it('refuses a session revoked by another writer (a direct write) as soon as its notification arrives', async () => {
    const h = await t.tokenFor(['cnv']);
    expect((await me(h)).statusCode).toBe(200);
    await t.c.database.exec('UPDATE sessions SET revoked_at = now()');
    await sessionCacheOf(t.c.database).sync();
    expect((await me(h)).statusCode).toBe(401);
  });

  it('keeps the idle limit while served from memory', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const h = await t.tokenFor(['cnv']);
      expect((await me(h)).statusCode).toBe(200);
      vi.setSystemTime(Date.now() + 3 * 60 * 60_000);
      expect((await me(h)).statusCode).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });
});

// Two API processes on one PostgreSQL: a sign-out on one is refused on the other.
describe.runIf(!!process.env.DATABASE_URL)('two API instances on one PostgreSQL', () => {
  it('refuses on instance B a token signed out on instance A', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    const name = `fd_test_${crypto.randomBytes(6).toString('hex')}`;
    const admin = await openPostgres(url.toString(), { max: 1 });
    await admin.exec(`CREATE DATABASE ${name}`);
    url.pathname = `/${name}`;
    const dirs: string[] = [];
    const make = async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-test-'));
      dirs.push(dir);
      const database = await openPostgres(url.toString(), { max: 3 });
      const config = loadConfig(
        { ...process.env, DATABASE_URL: url.toString(), DATA_DIR: dir, LOG_LEVEL: 'silent', ...TEST_RATE_LIMITS },
        { dotenv: false },
      );
      const c = await createContainer(config, { database });
      const app = await buildApp(c, { logger: false, webDist: null });
      return { c, app, database };
    };
    const a = await make();
    await a.database.migrate();
    const b = await make();
    try {
      await a.c.services.users.ensureAdmin({ username: 'root', password: 'a long enough password' });
      const login = await a.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { username: 'root', password: 'a long enough password' },
      });
      const h = String(login.headers.authorization);
      const onB = () => b.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: h } });
      expect((await onB()).statusCode).toBe(200);
      const spy = vi.spyOn(b.c.repos.auth, 'findActive');
      expect((await onB()).statusCode).toBe(200);
      expect(spy).not.toHaveBeenCalled();

      await a.app.inject({ method: 'POST', url: '/auth/logout', headers: { authorization: h } });
      await sessionCacheOf(b.database).sync();
      expect((await onB()).statusCode).toBe(401);
    } finally {
      await a.app.close();
      await b.app.close();
      await a.c.close();
      await b.c.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  }, 60_000);
});
