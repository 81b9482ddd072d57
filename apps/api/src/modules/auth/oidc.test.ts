import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type SQL } from 'drizzle-orm';
import Provider from 'oidc-provider';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { hashPassword } from '../../lib/passwords.ts';

/**
 * Single sign-on against a real OpenID provider (oidc-provider) on loopback: the browser's trip through the
 * provider is played with fetch and a cookie jar; the provider signs users in as `provider.account`.
 */
const REDIRECT_BASE = 'http://127.0.0.1:39999';
const CLIENT = { id: 'fleetdesk', secret: 'fleetdesk-test-client-secret-0123456789' };

type Account = { preferred_username: string; email: string; name: string; groups: string[] };

async function startProvider() {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const key = (kid: string) => ({
    ...(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as object),
    kid,
    alg: 'RS256',
    use: 'sig',
  });
  const signing = key('k1');
  // Another key under the same kid: the provider still signs with k1, but publishes this one when tampering.
  const other = key('k1') as Record<string, unknown>;
  const state = {
    issuer,
    accounts: new Map<string, Account>(),
    account: '',
    tamperJwks: false,
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [`${REDIRECT_BASE}/auth/oidc/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [signing] },
    claims: { openid: ['sub'], email: ['email'], profile: ['preferred_username', 'name'], groups: ['groups'] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['oidc-test-cookie-key'] },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id, ...state.accounts.get(id) }) }),
    // A first-party client: consent is given without asking.
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope('openid profile email groups');
      grant.addOIDCClaims(['preferred_username', 'email', 'name', 'groups']);
      await grant.save();
      return grant;
    },
  });
  provider.use(async (ctx, next) => {
    if (ctx.path.startsWith('/interaction/')) {
      const to = await provider.interactionResult(
        ctx.req,
        ctx.res,
        { login: { accountId: state.account } },
        { mergeWithLastSubmission: false },
      );
      ctx.redirect(to);
      return;
    }
    if (state.tamperJwks && ctx.path === '/jwks') {
      const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = other;
      ctx.type = 'application/jwk-set+json';
      ctx.body = { keys: [pub] };
      return;
    }
    await next();
  });
  server.on('request', provider.callback());
  return { state, close: () => new Promise<void>((r) => server.close(() => r())) };
}

type Idp = Awaited<ReturnType<typeof startProvider>>;

/** The browser: start at the console, follow the provider's redirects, come back to the console's callback. */
async function browse(
  t: TestApp,
  opts: { beforeCallback?: (callback: URL) => Promise<void> | void } = {},
): Promise<URL> {
  const start = await t.inject({ method: 'GET', url: '/auth/oidc/start' });
  expect(start.statusCode).toBe(302);
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
  const res = await t.inject({ method: 'GET', url: callback.pathname + callback.search });
  expect(res.statusCode).toBe(302);
  return new URL(String(res.headers.location));
}

async function exchange(t: TestApp, back: URL) {
  expect(back.pathname).toBe('/login/sso');
  return t.inject({ method: 'POST', url: '/auth/oidc/exchange', payload: { code: back.searchParams.get('code') } });
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
  OIDC_ISSUER: idp.state.issuer,
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
    idp.state.account = 'sub-alice';
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
    expect(linked).toEqual([{ issuer: idp.state.issuer, subject: 'sub-alice' }]);
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
    idp.state.account = 'sub-alice';
    const res = await exchange(t, await browse(t));
    expect(res.statusCode).toBe(200);
    expect(await rolesOf(t, 'alice')).toEqual(['Handpicked', 'Operators']);
    // Linked by subject: still one user, not a second "alice-2".
    expect(await t.c.repos.users.findByUsername('alice-2')).toBeUndefined();
  });

  it('links by subject, never by a matching username or email', async () => {
    idp.state.accounts.set('sub-other', {
      preferred_username: 'alice',
      email: 'alice@example.test',
      name: 'Not Alice',
      groups: [],
    });
    idp.state.account = 'sub-other';
    const res = await exchange(t, await browse(t));
    expect(res.json().data.user.username).toBe('alice-2');
  });

  it('refuses a callback whose state is not one it issued', async () => {
    idp.state.account = 'sub-alice';
    const back = await browse(t, {
      beforeCallback: (cb) => cb.searchParams.set('state', crypto.randomBytes(32).toString('base64url')),
    });
    expect(back.searchParams.get('error')).toBe('bad_state');
    expect(back.searchParams.get('code')).toBeNull();
    expect(await lastFailure(t)).toMatchObject({ method: 'oidc', reason: 'bad_state' });
  });

  it('refuses an ID token whose nonce is not the one of this sign-in', async () => {
    idp.state.account = 'sub-alice';
    const back = await browse(t, {
      beforeCallback: async () => {
        await t.c.database.db.execute(sql`update oidc_logins set nonce = 'a-different-nonce-0123456789'`);
      },
    });
    expect(back.searchParams.get('error')).toBe('invalid_response');
    expect(String((await lastFailure(t))?.detail)).toMatch(/nonce/i);
  });

  it('refuses a callback replayed with a state already used', async () => {
    idp.state.account = 'sub-alice';
    let replay = '';
    const back = await browse(t, { beforeCallback: (cb) => void (replay = cb.pathname + cb.search) });
    expect(back.searchParams.get('code')).toBeTruthy();
    const res = await t.inject({ method: 'GET', url: replay });
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
      idp.state.account = 'sub-alice';
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
      idp.state.account = 'sub-alice';
      const back = await browse(closed);
      expect(back.searchParams.get('error')).toBe('no_user');
      expect(back.searchParams.get('code')).toBeNull();
      expect(await closed.c.repos.users.findByUsername('alice')).toBeUndefined();
    } finally {
      await closed.close();
    }
  }, 60_000);

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
