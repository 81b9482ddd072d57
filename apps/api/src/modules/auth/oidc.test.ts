import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type SQL } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { startOidcSim } from '@fleetdesk/simulators/oidc/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { hashPassword } from '../../lib/passwords.ts';

/**
 * Single sign-on against a real OpenID provider (oidc-provider) on loopback: the browser's trip through the
 * provider is played with fetch and a cookie jar; the provider signs users in as `state.autoLogin`.
 */
const REDIRECT_BASE = 'http://127.0.0.1:39999';
const CLIENT = { id: 'fleetdesk', secret: 'fleetdesk-test-client-secret-0123456789' };

const startProvider = () =>
  startOidcSim({
    client: { id: CLIENT.id, secret: CLIENT.secret, redirectUris: [`${REDIRECT_BASE}/auth/oidc/callback`] },
  });

type Idp = Awaited<ReturnType<typeof startProvider>>;

/** The console's cookies a browser holds (the sign-in's binding to it), by the address it came back to. */
const consoleCookies = new WeakMap<URL, Map<string, string>>();
const keepCookies = (jar: Map<string, string>, setCookie: string | string[] | undefined) => {
  for (const c of [setCookie ?? []].flat()) {
    const kv = c.split(';')[0]!;
    const [k, v] = [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)];
    if (v) jar.set(k, v);
    else jar.delete(k);
  }
};
const cookieHeader = (jar: Map<string, string> | undefined) =>
  jar?.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {};

/** The browser: start at the console, follow the provider's redirects, come back to the console's callback. */
async function browse(
  t: TestApp,
  opts: { beforeCallback?: (callback: URL) => Promise<void> | void; start?: string } = {},
): Promise<URL> {
  const start = await t.inject({ method: 'GET', url: opts.start ?? '/auth/oidc/start' });
  expect(start.statusCode).toBe(302);
  const console = new Map<string, string>();
  keepCookies(console, start.headers['set-cookie']);
  let url = String(start.headers.location);
  const jar = new Map<string, string>();
  for (let i = 0; i < 10 && !url.startsWith(REDIRECT_BASE); i++) {
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of res.headers.getSetCookie()) {
      const kv = c.split(';')[0]!;
      jar.set(kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1));
    }
    const loc = res.headers.get('location');
    if (!loc) throw new Error(`provider answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    url = new URL(loc, url).toString();
  }
  const callback = new URL(url);
  expect(callback.pathname).toBe('/auth/oidc/callback');
  await opts.beforeCallback?.(callback);
  const res = await t.inject({
    method: 'GET',
    url: callback.pathname + callback.search,
    headers: cookieHeader(console),
  });
  expect(res.statusCode).toBe(302);
  keepCookies(console, res.headers['set-cookie']);
  const back = new URL(String(res.headers.location));
  consoleCookies.set(back, console);
  return back;
}

async function exchange(t: TestApp, back: URL) {
  expect(back.pathname).toBe('/login/sso');
  return t.inject({
    method: 'POST',
    url: '/auth/oidc/exchange',
    payload: { code: back.searchParams.get('code') },
    headers: cookieHeader(consoleCookies.get(back)),
  });
}

async function rows<T>(t: TestApp, q: SQL): Promise<T[]> {
  return ((await t.c.database.db.execute(q)) as unknown as { rows: T[] }).rows;
}

async function rolesOf(t: TestApp, username: string): Promise<string[]> {
  const user = await t.c.repos.users.findByUsername(username);
  const found = await rows<{ name: string }>(
    t,
    sql`select r.name from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = ${user!.id} order by r.name`,
  );
  return found.map((r) => r.name);
}

async function lastFailure(t: TestApp) {
  const found = await rows<{ details: Record<string, unknown> }>(
    t,
    sql`select details from audit_log where action = 'login_failed' order by at desc limit 1`,
  );
  return found[0]?.details;
}

const envFor = (idp: Idp, extra: Record<string, string> = {}) => ({
  OIDC_ISSUER: idp.issuer,
  OIDC_CLIENT_ID: CLIENT.id,
  OIDC_CLIENT_SECRET: CLIENT.secret,
  OIDC_SCOPES: 'openid profile email groups',
  OIDC_REDIRECT_BASE: REDIRECT_BASE,
  OIDC_PROVIDER_NAME: 'Keycloak',
  OIDC_ALLOW_CREATE_USERS: 'true',
  OIDC_GROUP_ROLES: JSON.stringify({ ops: 'Operators', auditors: 'Viewers' }),
  ...extra,
});

describe('single sign-on (OIDC)', () => {
  let idp: Idp;
  let t: TestApp;

  beforeAll(async () => {
    idp = await startProvider();
    t = await createTestApp(envFor(idp, { PASSWORD_SIGN_IN: 'false', BREAK_GLASS_USERNAME: 'rescue' }));
    await t.c.repos.roles.insert({ name: 'Operators', rules: ['cnv:domains'] });
    await t.c.repos.roles.insert({ name: 'Viewers', rules: ['cnv:audit'] });
    await t.c.repos.roles.insert({ name: 'Handpicked', rules: ['cnv:brands'] });
    idp.state.accounts.set('sub-alice', {
      sub: 'sub-alice',
      preferred_username: 'alice',
      email: 'alice@example.test',
      name: 'Alice Ops',
      groups: ['ops', 'auditors', 'unmapped'],
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  it('says on the sign-in page that it is on and password sign-in is off', async () => {
    const res = await t.inject({ method: 'GET', url: '/auth/oidc/config' });
    expect(res.json().data).toEqual({ enabled: true, providerName: 'Keycloak', passwordSignIn: false });
  });

  it('creates the user at first sign-in, maps groups to roles, and gives a session only for the one-time code', async () => {
    idp.state.autoLogin = 'sub-alice';
    const back = await browse(t);
    expect(back.searchParams.get('error')).toBeNull();
    expect(back.toString()).not.toMatch(/token/i);
    const res = await exchange(t, back);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.user.username).toBe('alice');
    const auth = String(res.headers.authorization);
    const me = await t.inject({ method: 'GET', url: '/auth/me', headers: { authorization: auth } });
    expect(me.json().data.rules.sort()).toEqual(['cnv:audit', 'cnv:domains']);
    expect(await rolesOf(t, 'alice')).toEqual(['Operators', 'Viewers']);
    // The code works once.
    const again = await exchange(t, back);
    expect(again.statusCode).toBe(401);
    const linked = await rows(t, sql`select issuer, subject from user_identities`);
    expect(linked).toEqual([{ issuer: idp.issuer, subject: 'sub-alice' }]);
    const logins = await rows<{ details: { method: string } }>(
      t,
      sql`select details from audit_log where action = 'login' order by at desc limit 1`,
    );
    expect(logins[0]?.details.method).toBe('oidc');
  });

  it('removes a mapped role no longer granted at the next sign-in, and leaves roles outside the mapping alone', async () => {
    const alice = await t.c.repos.users.findByUsername('alice');
    const handpicked = await t.c.repos.roles.findByName('Handpicked');
    await t.c.database.db.execute(
      sql`insert into user_roles (user_id, role_id) values (${alice!.id}, ${handpicked!.id})`,
    );
    idp.state.accounts.get('sub-alice')!.groups = ['ops'];
    idp.state.autoLogin = 'sub-alice';
    const res = await exchange(t, await browse(t));
    expect(res.statusCode).toBe(200);
    expect(await rolesOf(t, 'alice')).toEqual(['Handpicked', 'Operators']);
    // Linked by subject: still one user, not a second "alice-2".
    expect(await t.c.repos.users.findByUsername('alice-2')).toBeUndefined();
  });

  it('links by subject, never by a matching username or email', async () => {
    idp.state.accounts.set('sub-other', {
      sub: 'sub-other',
      preferred_username: 'alice',
      email: 'alice@example.test',
      name: 'Not Alice',
      groups: [],
    });
    idp.state.autoLogin = 'sub-other';
    const res = await exchange(t, await browse(t));
    expect(res.json().data.user.username).toBe('alice-2');
  });

  it('refuses a callback whose state is not one it issued', async () => {
    idp.state.autoLogin = 'sub-alice';
    const forged = crypto.randomBytes(32).toString('base64url');
    let callback = '';
    const back = await browse(t, {
      beforeCallback: (cb) => {
        cb.searchParams.set('state', forged);
        callback = cb.pathname + cb.search;
      },
    });
    // Not the state this browser started with.
    expect(back.searchParams.get('error')).toBe('other_browser');
    expect(back.searchParams.get('code')).toBeNull();
    // Even with a cookie that matches it, a state the console did not issue is refused.
    const cookie = `fd_oidc_state=${crypto.createHash('sha256').update(forged).digest('hex')}`;
    const res = await t.inject({ method: 'GET', url: callback, headers: { cookie } });
    expect(new URL(String(res.headers.location)).searchParams.get('error')).toBe('bad_state');
    expect(await lastFailure(t)).toMatchObject({ method: 'oidc', reason: 'bad_state' });
  });

  it('refuses an ID token whose nonce is not the one of this sign-in', async () => {
    idp.state.autoLogin = 'sub-alice';
    const back = await browse(t, {
      beforeCallback: async () => {
        await t.c.database.db.execute(sql`update oidc_logins set nonce = 'a-different-nonce-0123456789'`);
      },
    });
    expect(back.searchParams.get('error')).toBe('invalid_response');
    expect(String((await lastFailure(t))?.detail)).toMatch(/nonce/i);
  });

  it("binds the sign-in to the browser that started it (login CSRF): client B cannot take client A's", async () => {
    idp.state.autoLogin = 'sub-alice';
    // Client A starts, signs in at the provider, and keeps the callback address instead of following it.
    let kept = '';
    await browse(t, {
      beforeCallback: (cb) => {
        kept = cb.pathname + cb.search;
        // A's own callback goes elsewhere: a state nobody issued, so nothing is spent here.
        cb.searchParams.set('state', 'not-the-state');
      },
    });
    // Client B, with no cookies, opens it: no code, no session.
    const b = await t.inject({ method: 'GET', url: kept });
    expect(b.statusCode).toBe(302);
    const bBack = new URL(String(b.headers.location));
    expect(bBack.searchParams.get('code')).toBeNull();
    expect(bBack.searchParams.get('error')).toBe('other_browser');
    expect(b.headers['set-cookie']).toBeUndefined();
    expect(await lastFailure(t)).toMatchObject({ method: 'oidc', reason: 'other_browser' });
    // B with a cookie of its own sign-in is refused as well.
    const own = await t.inject({ method: 'GET', url: '/auth/oidc/start' });
    const bCookie = String([own.headers['set-cookie']].flat()[0]).split(';')[0]!;
    expect(bCookie).toMatch(/^fd_oidc_state=[0-9a-f]{64}$/);
    expect(String([own.headers['set-cookie']].flat()[0])).toMatch(/HttpOnly; SameSite=Lax/);
    const withOwn = await t.inject({ method: 'GET', url: kept, headers: { cookie: bCookie } });
    expect(new URL(String(withOwn.headers.location)).searchParams.get('error')).toBe('other_browser');

    // The one-time code is bound too: A's /login/sso?code=… opened by B exchanges nothing, and A's still works.
    const aBack = await browse(t);
    expect(aBack.searchParams.get('code')).toBeTruthy();
    const stolen = await t.inject({
      method: 'POST',
      url: '/auth/oidc/exchange',
      payload: { code: aBack.searchParams.get('code') },
    });
    expect(stolen.statusCode).toBe(401);
    expect(stolen.headers.authorization).toBeUndefined();
    expect(await lastFailure(t)).toMatchObject({ method: 'oidc', reason: 'other browser' });
    const a = await exchange(t, aBack);
    expect(a.statusCode).toBe(200);
    expect(a.json().data.user.username).toBe('alice');
  });

  it('refuses a callback replayed with a state already used', async () => {
    idp.state.autoLogin = 'sub-alice';
    let replay = '';
    const back = await browse(t, { beforeCallback: (cb) => void (replay = cb.pathname + cb.search) });
    expect(back.searchParams.get('code')).toBeTruthy();
    // The same browser (its cookie holds the state's hash) replays it.
    const state = new URL(replay, REDIRECT_BASE).searchParams.get('state')!;
    const cookie = `fd_oidc_state=${crypto.createHash('sha256').update(state).digest('hex')}`;
    const res = await t.inject({ method: 'GET', url: replay, headers: { cookie } });
    expect(new URL(String(res.headers.location)).searchParams.get('error')).toBe('bad_state');
  });

  it('turns password sign-in off for everyone but the break-glass administrator', async () => {
    const hash = await hashPassword('correct horse battery');
    await t.c.repos.users.insert({ username: 'rescue', name: 'Rescue', email: '', passwordHash: hash });
    await t.c.repos.users.insert({ username: 'bob', name: 'Bob', email: '', passwordHash: hash });
    const bob = await t.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { username: 'bob', password: 'correct horse battery' },
    });
    expect(bob.statusCode).toBe(401);
    expect(bob.json().message).toMatch(/single sign-on/);
    const rescue = await t.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { username: 'Rescue', password: 'correct horse battery' },
    });
    expect(rescue.statusCode).toBe(200);
  });

  it('refuses an ID token signed by a key the provider does not publish', async () => {
    // A fresh process: its first look at the provider's JWKS finds another key under the same kid.
    const fresh = await createTestApp(envFor(idp));
    try {
      idp.state.tamperJwks = true;
      idp.state.autoLogin = 'sub-alice';
      const back = await browse(fresh);
      expect(back.searchParams.get('error')).toBe('invalid_response');
      expect(back.searchParams.get('code')).toBeNull();
      expect(String((await lastFailure(fresh))?.detail)).toMatch(/signature/i);
    } finally {
      idp.state.tamperJwks = false;
      await fresh.close();
    }
  }, 60_000);

  it('creates no user when creating users is off, and signs in nobody unlinked', async () => {
    const closed = await createTestApp(envFor(idp, { OIDC_ALLOW_CREATE_USERS: 'false' }));
    try {
      idp.state.autoLogin = 'sub-alice';
      const back = await browse(closed);
      expect(back.searchParams.get('error')).toBe('no_user');
      expect(back.searchParams.get('code')).toBeNull();
      expect(await closed.c.repos.users.findByUsername('alice')).toBeUndefined();
    } finally {
      await closed.close();
    }
  }, 60_000);

  it('reads groups at a claim path, as Keycloak sends realm_access.roles', async () => {
    const kc = await createTestApp(envFor(idp, { OIDC_GROUPS_CLAIM: 'realm_access.roles' }));
    try {
      await kc.c.repos.roles.insert({ name: 'Operators', rules: ['cnv:domains'] });
      await kc.c.repos.roles.insert({ name: 'Viewers', rules: ['cnv:audit'] });
      idp.state.accounts.set('sub-kc', {
        sub: 'sub-kc',
        preferred_username: 'kira',
        email: 'kira@example.test',
        name: 'Kira',
        extra: { realm_access: { roles: ['ops', 'offline_access'] } },
      });
      idp.state.autoLogin = 'sub-kc';
      const res = await exchange(kc, await browse(kc));
      expect(res.statusCode, res.body).toBe(200);
      expect(await rolesOf(kc, 'kira')).toEqual(['Operators']);
    } finally {
      await kc.close();
    }
  }, 60_000);

  it('says so when Entra ID signals a group overage, rather than mapping no groups', async () => {
    idp.state.accounts.set('sub-big', {
      sub: 'sub-big',
      preferred_username: 'bigco',
      email: 'bigco@example.test',
      name: 'Many Groups',
      extra: {
        _claim_names: { groups: 'src1' },
        _claim_sources: { src1: { endpoint: 'https://graph.microsoft.com/v1.0/users/x/getMemberObjects' } },
      },
    });
    idp.state.autoLogin = 'sub-big';
    const back = await browse(t);
    expect(back.searchParams.get('error')).toBe('groups_overage');
    expect(back.searchParams.get('code')).toBeNull();
    expect(await lastFailure(t)).toMatchObject({ method: 'oidc', reason: 'groups_overage' });
    expect(await t.c.repos.users.findByUsername('bigco')).toBeUndefined();
  });

  it('refuses to start when the configuration is incomplete', async () => {
    const { loadConfig } = await import('../../config.ts');
    expect(() => loadConfig({ OIDC_ISSUER: 'https://idp.example.test' }, { dotenv: false })).toThrow(
      /OIDC_CLIENT_ID: is required[\s\S]*OIDC_REDIRECT_BASE/,
    );
    expect(() => loadConfig({ PASSWORD_SIGN_IN: 'false' }, { dotenv: false })).toThrow(/PASSWORD_SIGN_IN/);
    expect(() =>
      loadConfig({ ...envFor(idp), OIDC_ISSUER: 'http://idp.example.test', OIDC_GROUP_ROLES: '{' }, { dotenv: false }),
    ).toThrow(/OIDC_ISSUER: must be https[\s\S]*|OIDC_GROUP_ROLES/);
  });
});

/** The path of an administrator's link invitation for a user (the address is answered once). */
async function invite(t: TestApp, admin: string, userId: string): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: `/api/users/${userId}/identity-link`,
    headers: { authorization: admin },
  });
  expect(res.statusCode, res.body).toBe(201);
  const url = new URL(res.json().data.url);
  expect(url.origin).toBe(REDIRECT_BASE);
  expect(url.pathname).toBe('/auth/oidc/start');
  return url.pathname + url.search;
}

describe('linking existing users to provider accounts (user creation off)', () => {
  let idp: Idp;
  let t: TestApp;
  let admin: string;
  const ids: Record<string, string> = {};
  const auth = (h: string) => ({ authorization: h });

  beforeAll(async () => {
    idp = await startProvider();
    t = await createTestApp(envFor(idp, { OIDC_ALLOW_CREATE_USERS: 'false' }));
    admin = await t.tokenFor(['cnv'], { username: 'root-admin' });
    const hash = await hashPassword('correct horse battery');
    for (const username of ['carol', 'dave']) {
      ids[username] = (await t.c.repos.users.insert({ username, name: username, email: '', passwordHash: hash })).id;
    }
    // The provider's usernames differ from the console's: only the link binds them.
    for (const [sub, name] of [
      ['sub-carol', 'c.smith'],
      ['sub-dave', 'd.jones'],
    ]) {
      idp.state.accounts.set(sub!, {
        sub: sub!,
        preferred_username: name!,
        email: `${name}@example.test`,
        name: name!,
        groups: [],
      });
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  const identitiesOf = async (user: string) =>
    (await t.inject({ method: 'GET', url: `/api/users/${ids[user]}/identities`, headers: auth(admin) })).json().data;

  it('links through a one-time invitation: the next sign-in binds the provider account to the invited user', async () => {
    const link = await invite(t, admin, ids.carol!);
    const before = await identitiesOf('carol');
    expect(before).toMatchObject({ ssoEnabled: true, providerName: 'Keycloak', identities: [] });
    expect(before.pendingLink.dateExpires).toBeTruthy();
    // The invitation's token is stored hashed.
    const stored = await rows<{ token_hash: string }>(t, sql`select token_hash from identity_links`);
    expect(stored[0]!.token_hash).not.toBe(new URL(link, REDIRECT_BASE).searchParams.get('link'));

    idp.state.autoLogin = 'sub-carol';
    const res = await exchange(t, await browse(t, { start: link }));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.user.username).toBe('carol');
    const after = await identitiesOf('carol');
    expect(after.identities).toMatchObject([{ issuer: idp.issuer, subject: 'sub-carol' }]);
    expect(after.pendingLink).toBeNull();
    const audit = await rows<{ details: Record<string, unknown> }>(
      t,
      sql`select details from audit_log where entity_id = ${ids.carol} and action = 'update' order by at`,
    );
    expect(audit.map((a) => a.details)).toEqual([
      { identityLink: 'invitation created' },
      { identityLinked: { issuer: idp.issuer, subject: 'sub-carol' }, via: 'link invitation' },
    ]);
    // Used once: the same address now says so, and a plain sign-in finds the link.
    const again = await t.inject({ method: 'GET', url: link });
    expect(new URL(String(again.headers.location)).searchParams.get('error')).toBe('link_expired');
    const plain = await exchange(t, await browse(t));
    expect(plain.json().data.user.username).toBe('carol');
  });

  it('refuses an invitation taken by an account already linked to someone else, and keeps the invitation', async () => {
    const link = await invite(t, admin, ids.dave!);
    idp.state.autoLogin = 'sub-carol';
    const back = await browse(t, { start: link });
    expect(back.searchParams.get('error')).toBe('identity_taken');
    expect(back.searchParams.get('code')).toBeNull();
    const dave = await identitiesOf('dave');
    expect(dave.identities).toEqual([]);
    expect(dave.pendingLink).not.toBeNull();
    // The right account can still use it.
    idp.state.autoLogin = 'sub-dave';
    const res = await exchange(t, await browse(t, { start: link }));
    expect(res.json().data.user.username).toBe('dave');
  });

  it('links by subject with a 409 for an account linked elsewhere, and unlinks', async () => {
    const taken = await t.inject({
      method: 'POST',
      url: `/api/users/${ids.dave}/identities`,
      headers: auth(admin),
      payload: { subject: 'sub-carol' },
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ message: 'This account is already linked to another user' });
    expect(taken.json().fields.subject).toBeTruthy();
    const blank = await t.inject({
      method: 'POST',
      url: `/api/users/${ids.dave}/identities`,
      headers: auth(admin),
      payload: { subject: ' ' },
    });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().fields.subject).toBe('Subject is required');

    const dave = await identitiesOf('dave');
    const gone = await t.inject({
      method: 'DELETE',
      url: `/api/users/${ids.dave}/identities/${dave.identities[0]._id}`,
      headers: auth(admin),
    });
    expect(gone.statusCode).toBe(200);
    idp.state.autoLogin = 'sub-dave';
    expect((await browse(t)).searchParams.get('error')).toBe('no_user');

    const linked = await t.inject({
      method: 'POST',
      url: `/api/users/${ids.dave}/identities`,
      headers: auth(admin),
      payload: { subject: 'sub-dave' },
    });
    expect(linked.statusCode).toBe(201);
    expect(linked.json().data).toMatchObject({ issuer: idp.issuer, subject: 'sub-dave', dateLastLogin: null });
    expect((await exchange(t, await browse(t))).json().data.user.username).toBe('dave');
    const audit = await rows<{ details: Record<string, unknown> }>(
      t,
      sql`select details from audit_log where entity_id = ${ids.dave} and action = 'update' order by at desc limit 2`,
    );
    expect(audit.map((a) => a.details)).toEqual([
      { identityLinked: { issuer: idp.issuer, subject: 'sub-dave' }, via: 'subject' },
      { identityUnlinked: { issuer: idp.issuer, subject: 'sub-dave' } },
    ]);
  });

  it("lets only holders of cnv:users who hold the user's rules link, never a token, and says when a link is unknown", async () => {
    const role = await t.c.repos.roles.insert({ name: 'Brand keepers', rules: ['cnv:brands'] });
    await t.c.repos.users.setRoles(ids.carol!, [role.id]);
    const clerk = await t.tokenFor(['cnv:users']);
    const denied = await t.inject({
      method: 'POST',
      url: `/api/users/${ids.carol}/identity-link`,
      headers: auth(clerk),
    });
    expect(denied.statusCode).toBe(403);
    const none = await t.inject({ method: 'POST', url: `/api/users/${ids.carol}/identity-link` });
    expect(none.statusCode).toBe(401);
    const token = await t.inject({
      method: 'POST',
      url: '/auth/tokens',
      headers: auth(admin),
      payload: { name: 'script', rules: ['cnv'], expiresInDays: 1 },
    });
    const bearer = `Bearer ${token.json().data.token}`;
    const byToken = await t.inject({
      method: 'POST',
      url: `/api/users/${ids.carol}/identity-link`,
      headers: auth(bearer),
    });
    expect(byToken.statusCode).toBe(403);
    const read = await t.inject({ method: 'GET', url: `/api/users/${ids.carol}/identities`, headers: auth(bearer) });
    expect(read.statusCode).toBe(200);
    const bogus = await t.inject({ method: 'GET', url: `/auth/oidc/start?link=${'0'.repeat(64)}` });
    expect(bogus.statusCode).toBe(302);
    expect(String(bogus.headers.location)).toBe(`${REDIRECT_BASE}/login/sso?error=link_expired`);
    const cancel = await t.inject({
      method: 'DELETE',
      url: `/api/users/${ids.carol}/identity-link`,
      headers: auth(admin),
    });
    expect(cancel.statusCode).toBe(404);
  });
});

describe("single sign-on and the console's two-factor", () => {
  let idp: Idp;
  const apps: TestApp[] = [];
  const codeOf = (secret: string) =>
    new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: Date.now() });

  beforeAll(async () => {
    idp = await startProvider();
    idp.state.accounts.set('sub-gina', {
      sub: 'sub-gina',
      preferred_username: 'gina',
      email: 'gina@example.test',
      name: 'Gina Guard',
      groups: ['guards'],
    });
  }, 60_000);
  afterAll(async () => {
    for (const a of apps) await a.close();
    await idp?.close();
  });

  async function appWith(extra: Record<string, string>) {
    const t = await createTestApp(envFor(idp, { OIDC_GROUP_ROLES: JSON.stringify({ guards: 'Guards' }), ...extra }));
    apps.push(t);
    await t.c.repos.roles.insert({ name: 'Guards', rules: ['cnv:brands'], requireTwoFactor: true });
    return t;
  }
  const signIn = async (t: TestApp, amr?: string[]) => {
    idp.state.accounts.get('sub-gina')!.amr = amr;
    idp.state.autoLogin = 'sub-gina';
    const res = await exchange(t, await browse(t));
    expect(res.statusCode, res.body).toBe(200);
    return res;
  };
  const lastLoginMethod = async (t: TestApp) =>
    (
      await rows<{ details: { method: string } }>(
        t,
        sql`select details from audit_log where action = 'login' order by at desc limit 1`,
      )
    )[0]?.details.method;

  it('asks for the setup, then the code, when the provider asserts no MFA and a role requires two-factor', async () => {
    const t = await appWith({});
    const first = await signIn(t, ['pwd']);
    expect(first.json().data.twoFactorSetupRequired).toBe(true);
    const header = String(first.headers.authorization);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: { authorization: header } })).statusCode).toBe(
      403,
    );
    const setup = await t.inject({ method: 'POST', url: '/auth/two-factor/setup', headers: { authorization: header } });
    const { secret } = setup.json().data;
    const enable = await t.inject({
      method: 'POST',
      url: '/auth/two-factor/enable',
      headers: { authorization: header },
      payload: { code: codeOf(secret) },
    });
    expect(enable.statusCode).toBe(200);

    const second = await signIn(t);
    expect(second.headers.authorization).toBeUndefined();
    const { challenge, twoFactorRequired } = second.json().data;
    expect(twoFactorRequired).toBe(true);
    // The code of the setup was spent; the next step's code opens the session.
    const step = await t.inject({
      method: 'POST',
      url: '/auth/login/two-factor',
      payload: {
        challenge,
        code: new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
          timestamp: Date.now() + 30_000,
        }),
      },
    });
    expect(step.statusCode, step.body).toBe(200);
    expect(await lastLoginMethod(t)).toBe('oidc and totp');
  }, 60_000);

  it("lets an MFA the provider asserts (amr otp, or an acr configured as MFA) stand in for the console's code", async () => {
    const t = await appWith({ OIDC_MFA_ACR: 'urn:example:mfa' });
    const res = await signIn(t, ['pwd', 'otp']);
    expect(res.headers.authorization).toMatch(/^Bearer /);
    expect(res.json().data.twoFactorSetupRequired).toBe(false);
    expect(await lastLoginMethod(t)).toBe('oidc with mfa');
    const me = await t.inject({
      method: 'GET',
      url: '/api/brands',
      headers: { authorization: String(res.headers.authorization) },
    });
    expect(me.statusCode).toBe(200);

    idp.state.accounts.get('sub-gina')!.acr = 'urn:example:mfa';
    const byAcr = await signIn(t, ['pwd']);
    idp.state.accounts.get('sub-gina')!.acr = undefined;
    expect(byAcr.json().data.twoFactorSetupRequired).toBe(false);
  }, 60_000);

  it("asks for the console's two-factor anyway when the provider's MFA is not trusted", async () => {
    const t = await appWith({ OIDC_TRUST_PROVIDER_MFA: 'false' });
    const res = await signIn(t, ['pwd', 'otp']);
    expect(res.json().data.twoFactorSetupRequired).toBe(true);
  }, 60_000);
});
