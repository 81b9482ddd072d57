import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { eq } from 'drizzle-orm';
import { auditLog, userRecoveryCodes, userTwoFactor } from '../../db/schema/index.ts';
import { startSmtpCatcher } from '@fleetdesk/simulators/smtp/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  // Long enough that no throttle delay runs out while a test runs.
  t = await createTestApp({ LOGIN_DELAY_SECONDS: '120' });
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());
afterEach(() => vi.useRealTimers());

/** A fixed clock on the start of a TOTP step, so "30 s ago" is exactly the previous step. */
const STEP_START = Math.floor(Date.now() / 30_000) * 30_000 + 1_000;
const setClock = (ms: number) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(ms);
};
const codeAt = (secret: string, ms: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: ms });

const PASSWORD = 'correct horse battery';
const auth = (h: string) => ({ authorization: h });

async function login(username: string, password = PASSWORD, ip = '10.9.0.1') {
  return t.inject({ method: 'POST', url: '/auth/login', payload: { username, password }, remoteAddress: ip });
}
async function codeStep(challenge: string, code: string, ip = '10.9.0.1') {
  return t.inject({ method: 'POST', url: '/auth/login/two-factor', payload: { challenge, code }, remoteAddress: ip });
}

/** A user with two-factor on; answers its secret, recovery codes and the header of the session that set it up. */
async function withTwoFactor(rules: string[] = ['cnv:brands'], username = 'tess') {
  const header = await t.tokenFor(rules, { username });
  const setup = await t.inject({ method: 'POST', url: '/auth/two-factor/setup', headers: auth(header) });
  expect(setup.statusCode).toBe(200);
  const { secret, otpauthUri, qrCode } = setup.json().data;
  expect(otpauthUri).toMatch(new RegExp(`^otpauth://totp/Fleetdesk:${username}\\?`));
  expect(qrCode).toMatch(/^data:image\/png;base64,/);
  const enable = await t.inject({
    method: 'POST',
    url: '/auth/two-factor/enable',
    headers: auth(header),
    payload: { code: codeAt(secret, Date.now()) },
  });
  expect(enable.statusCode).toBe(200);
  const recoveryCodes: string[] = enable.json().data.recoveryCodes;
  return { header, secret: secret as string, recoveryCodes };
}

describe('turning TOTP on', () => {
  it('shows a secret and a QR code, is confirmed by one code, and gives ten recovery codes stored hashed', async () => {
    setClock(STEP_START);
    const { header, recoveryCodes, secret } = await withTwoFactor();
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect(recoveryCodes[0]).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
    const status = await t.inject({ method: 'GET', url: '/auth/two-factor', headers: auth(header) });
    expect(status.json().data).toMatchObject({ enabled: true, requiredByRole: false, recoveryCodesLeft: 10 });

    // Neither the secret nor a code is stored in clear, nor answered again.
    const [row] = await t.c.database.db.select().from(userTwoFactor);
    expect(row!.secret).not.toContain(secret);
    const codes = await t.c.database.db.select().from(userRecoveryCodes);
    expect(codes.map((c) => c.codeHash)).not.toContain(recoveryCodes[0]);
    expect(status.body).not.toContain(secret);
    const again = await t.inject({ method: 'POST', url: '/auth/two-factor/setup', headers: auth(header) });
    expect(again.statusCode).toBe(409);
  });

  it('refuses a wrong first code and leaves two-factor off', async () => {
    const header = await t.tokenFor(['cnv:brands']);
    await t.inject({ method: 'POST', url: '/auth/two-factor/setup', headers: auth(header) });
    const res = await t.inject({
      method: 'POST',
      url: '/auth/two-factor/enable',
      headers: auth(header),
      payload: { code: '000000' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields.code).toBe('Invalid two-factor code');
    const status = await t.inject({ method: 'GET', url: '/auth/two-factor', headers: auth(header) });
    expect(status.json().data.enabled).toBe(false);
  });
});

describe('signing in with a code', () => {
  it('asks for a code after the password, with no token until the code is right', async () => {
    setClock(STEP_START);
    const { secret } = await withTwoFactor();
    vi.setSystemTime(STEP_START + 60_000);
    const first = await login('tess');
    expect(first.statusCode).toBe(200);
    expect(first.headers.authorization).toBeUndefined();
    const { challenge, twoFactorRequired } = first.json().data;
    expect(twoFactorRequired).toBe(true);

    const ok = await codeStep(challenge, codeAt(secret, Date.now()));
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.authorization).toMatch(/^Bearer [0-9a-f]{64}$/);
    expect(ok.json().data.user.username).toBe('tess');
    const me = await t.inject({ method: 'GET', url: '/auth/me', headers: auth(String(ok.headers.authorization)) });
    expect(me.statusCode).toBe(200);
    // The challenge is spent.
    const reuse = await codeStep(challenge, codeAt(secret, Date.now() + 30_000));
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json().code).toBe('challenge_expired');
  });

  it('accepts the previous and the next step, not two steps away (the window)', async () => {
    setClock(STEP_START);
    const { secret } = await withTwoFactor();
    const now = STEP_START + 10 * 30_000;
    vi.setSystemTime(now);
    for (const [offset, ok] of [
      [-60_000, false],
      [60_000, false],
      [-30_000, true],
      [30_000, true],
    ] as const) {
      const { challenge } = (await login('tess')).json().data;
      const res = await codeStep(challenge, codeAt(secret, now + offset));
      expect(res.statusCode, `offset ${offset}`).toBe(ok ? 200 : 401);
    }
  });

  it('never accepts a code twice, nor an older one after a newer', async () => {
    setClock(STEP_START);
    const { secret } = await withTwoFactor();
    vi.setSystemTime(STEP_START + 90_000);
    const code = codeAt(secret, Date.now());
    const a = await codeStep((await login('tess')).json().data.challenge, code);
    expect(a.statusCode).toBe(200);
    const replay = await codeStep((await login('tess')).json().data.challenge, code);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ code: 'invalid_code', message: 'Invalid two-factor code' });
    const older = await codeStep((await login('tess')).json().data.challenge, codeAt(secret, Date.now() - 30_000));
    expect(older.statusCode).toBe(401);
    // The code that enabled two-factor cannot sign in either (same step remembered).
    vi.setSystemTime(STEP_START + 120_000);
    const fresh = await codeStep((await login('tess')).json().data.challenge, codeAt(secret, Date.now()));
    expect(fresh.statusCode).toBe(200);
  });

  it('accepts a recovery code once', async () => {
    const { recoveryCodes, header } = await withTwoFactor();
    const code = recoveryCodes[3]!;
    const ok = await codeStep((await login('tess')).json().data.challenge, code.toUpperCase().replace(/-/g, ' '));
    expect(ok.statusCode).toBe(200);
    const again = await codeStep((await login('tess')).json().data.challenge, code);
    expect(again.statusCode).toBe(401);
    const status = await t.inject({ method: 'GET', url: '/auth/two-factor', headers: auth(header) });
    expect(status.json().data.recoveryCodesLeft).toBe(9);
    const entries = await t.c.database.db.select().from(auditLog).where(eq(auditLog.action, 'login'));
    expect(entries.some((e) => e.details?.method === 'password and recovery code')).toBe(true);
  });

  it('counts the code step like the password: a challenge dies after 5 wrong codes, then the throttle refuses', async () => {
    const { secret } = await withTwoFactor();
    const { challenge } = (await login('tess')).json().data;
    for (let i = 1; i <= 5; i++) {
      const res = await codeStep(challenge, i === 5 ? 'not-a-code' : `00000${i}`);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe(i < 5 ? 'invalid_code' : 'challenge_expired');
    }
    // A new password sign-in does not reset the count of codes: the next code waits, even a right one.
    const next = (await login('tess')).json().data.challenge;
    const refused = await codeStep(next, codeAt(secret, Date.now() + 30_000));
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().message).toMatch(/^Too many failed two-factor codes\. Try again in \d+ seconds?\.$/);
    // Another address waits too: wrong codes are counted per user (issue 42). Once the wait is over, it passes.
    const other = (await login('tess', PASSWORD, '10.9.0.2')).json().data.challenge;
    expect((await codeStep(other, codeAt(secret, Date.now() + 30_000), '10.9.0.2')).statusCode).toBe(429);
    setClock(Date.now() + 31_000);
    const passed = await codeStep(other, codeAt(secret, Date.now() + 30_000), '10.9.0.2');
    expect(passed.statusCode, passed.body).toBe(200);
  });

  it('counts wrong codes per user whatever the address, with a growing wait, and tells the owner by email', async () => {
    const smtp = await startSmtpCatcher({ users: { mailer: 'smtp-pa55' } });
    try {
      const admin = await t.tokenFor(['cnv']);
      const channel = await t.inject({
        method: 'POST',
        url: '/api/notification-channels',
        headers: auth(admin),
        payload: {
          name: 'Mail',
          kind: 'email',
          smtpHost: '127.0.0.1',
          smtpPort: smtp.port,
          smtpSecurity: 'none',
          smtpUser: 'mailer',
          smtpPassword: 'smtp-pa55',
          emailFrom: 'fleetdesk@example.com',
          emailTo: 'ops@example.com',
        },
      });
      expect(channel.statusCode, channel.body).toBe(201);
      const { secret } = await withTwoFactor(['cnv:brands'], 'many');
      const start = Date.now();
      setClock(start);
      // The password is known; each wrong code comes from a fresh address with a fresh challenge.
      const tryFrom = async (n: number, code = '000000') => {
        const ip = `10.66.${Math.floor(n / 250)}.${(n % 250) + 1}`;
        const challenge = (await login('many', PASSWORD, ip)).json().data.challenge;
        return codeStep(challenge, code, ip);
      };
      const codes: number[] = [];
      for (let n = 0; n < 8; n++) codes.push((await tryFrom(n)).statusCode);
      expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      // The waits grow: 30 s after the fifth, then 60 s after the next one.
      setClock(start + 31_000);
      expect((await tryFrom(20)).statusCode).toBe(401);
      setClock(start + 31_000 + 59_000);
      expect((await tryFrom(21)).statusCode).toBe(429);
      // Even the owner's right code waits its turn, then passes.
      setClock(start + 31_000 + 61_000);
      expect((await tryFrom(22, codeAt(secret, Date.now()))).statusCode).toBe(200);

      // The owner was told once, at the fifth wrong code, at the address the user has.
      await expect.poll(() => smtp.mails.length, { timeout: 10_000 }).toBe(1);
      expect(smtp.mails[0]).toMatchObject({
        to: ['many@example.test'],
        subject: '[Fleetdesk] Wrong two-factor codes for your account',
      });
      expect(smtp.mails[0]!.text).toMatch(/someone knows your password/);
      const warned = await t.c.database.db.select().from(auditLog).where(eq(auditLog.action, 'update'));
      expect(warned.map((e) => e.details)).toContainEqual(
        expect.objectContaining({ twoFactor: 'wrong codes warning', mail: 'sent' }),
      );
    } finally {
      await smtp.close();
    }
  });

  it('refuses an unknown or malformed challenge', async () => {
    expect((await codeStep('a'.repeat(64), '123456')).statusCode).toBe(401);
    expect((await codeStep('nope', '123456')).statusCode).toBe(400);
  });
});

describe('a role that requires two-factor', () => {
  it('lets its users do nothing but set it up, then everything their rules allow', async () => {
    const role = await t.c.repos.roles.insert({ name: 'Strict', rules: ['cnv:brands'], requireTwoFactor: true });
    await t.tokenFor([], { username: 'sam' });
    const sam = (await t.c.repos.users.findByUsername('sam'))!;
    await t.c.repos.users.setRoles(sam.id, [role.id]);

    const res = await login('sam');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.twoFactorSetupRequired).toBe(true);
    const header = String(res.headers.authorization);
    const blocked = await t.inject({ method: 'GET', url: '/api/brands', headers: auth(header) });
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json().code).toBe('two_factor_setup_required');
    expect((await t.inject({ method: 'GET', url: '/auth/sessions', headers: auth(header) })).statusCode).toBe(403);
    const me = await t.inject({ method: 'GET', url: '/auth/me', headers: auth(header) });
    expect(me.json().data.twoFactorSetupRequired).toBe(true);

    const { secret } = (await t.inject({ method: 'POST', url: '/auth/two-factor/setup', headers: auth(header) })).json()
      .data;
    const enable = await t.inject({
      method: 'POST',
      url: '/auth/two-factor/enable',
      headers: auth(header),
      payload: { code: codeAt(secret, Date.now()) },
    });
    expect(enable.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: auth(header) })).statusCode).toBe(200);

    // It cannot be turned off while the role requires it.
    const off = await t.inject({
      method: 'POST',
      url: '/auth/two-factor/disable',
      headers: auth(header),
      payload: { password: PASSWORD, code: enable.json().data.recoveryCodes[0] },
    });
    expect(off.statusCode).toBe(409);
  });
});

describe('turning it off, and the administrator reset', () => {
  it('turns off with the password and a code', async () => {
    const { header, recoveryCodes } = await withTwoFactor();
    const wrong = await t.inject({
      method: 'POST',
      url: '/auth/two-factor/disable',
      headers: auth(header),
      payload: { password: 'not the password', code: recoveryCodes[0] },
    });
    expect(wrong.statusCode).toBe(400);
    const ok = await t.inject({
      method: 'POST',
      url: '/auth/two-factor/disable',
      headers: auth(header),
      payload: { password: PASSWORD, code: recoveryCodes[0] },
    });
    expect(ok.statusCode).toBe(200);
    const res = await login('tess');
    expect(res.headers.authorization).toMatch(/^Bearer /);
  });

  it('lets a holder of cnv:users reset it, audited, ending the sessions; never showing the secret', async () => {
    const { header: tess, secret } = await withTwoFactor(['cnv:brands']);
    const tessId = (await t.c.repos.users.findByUsername('tess'))!.id;
    const admin = await t.tokenFor(['cnv:users', 'cnv:brands']);
    const seen = await t.inject({ method: 'GET', url: `/api/users/${tessId}/two-factor`, headers: auth(admin) });
    expect(seen.json().data).toEqual({ enabled: true, enabledAt: expect.any(String) });
    expect(seen.body).not.toContain(secret);

    const reset = await t.inject({
      method: 'POST',
      url: `/api/users/${tessId}/two-factor/reset`,
      headers: auth(admin),
    });
    expect(reset.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: auth(tess) })).statusCode).toBe(401);
    expect((await login('tess')).headers.authorization).toMatch(/^Bearer /);
    const entries = await t.c.database.db.select().from(auditLog).where(eq(auditLog.entityId, tessId));
    expect(entries.some((e) => e.details?.twoFactor === 'reset')).toBe(true);

    // Someone who does not hold every rule of the user cannot.
    await withTwoFactor(['cnv:domains'], 'omar');
    const omarId = (await t.c.repos.users.findByUsername('omar'))!.id;
    const refused = await t.inject({
      method: 'POST',
      url: `/api/users/${omarId}/two-factor/reset`,
      headers: auth(admin),
    });
    expect(refused.statusCode).toBe(403);
    const noRule = await t.tokenFor(['cnv:brands']);
    expect(
      (await t.inject({ method: 'POST', url: `/api/users/${omarId}/two-factor/reset`, headers: auth(noRule) }))
        .statusCode,
    ).toBe(403);
  });
});
