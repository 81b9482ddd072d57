import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.ts';

/**
 * The outside review's reproduction (issue 26): attackers on 40 addresses guess the admin's password, each well
 * under any per-address limit, and use up the username's shared pool. The real admin, from an address or a
 * browser that signed in before, must still get in. Every client here has its own loopback address (127.0.0.x).
 */
let t: TestApp;
let port: number;
const PASSWORD = 'correct horse battery';
beforeAll(async () => {
  // The pool opens once a minute past five failures: an attacker's admitted guess keeps it shut for the test.
  t = await createTestApp({ LOGIN_USERNAME_SLOW_AFTER: '5', LOGIN_DELAY_SECONDS: '60' });
  await t.tokenFor(['cnv'], { username: 'boss', password: PASSWORD });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as net.AddressInfo).port;
}, 120_000);
afterAll(async () => t?.close());

type Answer = { status: number; body: { message?: string }; cookie?: string };
const login = (from: string, password: string, cookie?: string) =>
  new Promise<Answer>((resolve, reject) => {
    const payload = JSON.stringify({ username: 'boss', password });
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        localAddress: from,
        method: 'POST',
        path: '/auth/login',
        agent: false,
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += String(d)));
        res.on('end', () => {
          const set = [res.headers['set-cookie'] ?? []].flat()[0];
          resolve({ status: res.statusCode!, body: JSON.parse(text) as Answer['body'], cookie: set?.split(';')[0] });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });

const attackers = Array.from({ length: 40 }, (_, i) => `127.0.0.${10 + i}`);
/** One round: every attacker address guesses once. */
const attackRound = async (round: number) => {
  const answers = await Promise.all(attackers.map((ip) => login(ip, `guess-${round}-${ip}`)));
  return answers.map((a) => a.status);
};

describe('device allowance against a distributed attacker', () => {
  it('keeps the admin signing in from a known address or browser while 40 addresses guess', async () => {
    const home = await login('127.0.0.200', PASSWORD);
    expect(home.status).toBe(200);
    expect(home.cookie).toMatch(/^fd_device=[0-9a-f]{64}$/);

    // Past five failures the username's pool admits one guess a minute: the attackers now hold it.
    const first = await attackRound(1);
    expect(first.filter((s) => s === 401).length).toBeGreaterThanOrEqual(5);
    expect(first.filter((s) => s === 429).length).toBeGreaterThan(0);

    // A fresh address with no history shares the attackers' pool, and is refused, as the review saw.
    const stranger = await login('127.0.0.201', PASSWORD);
    expect(stranger.status).toBe(429);
    expect(stranger.body.message).toMatch(/^Too many failed sign-in attempts\. Try again in \d+ seconds?\.$/);

    // The admin's own address: 15 sign-ins out of 15, with the attack going on between them.
    let admitted = 0;
    for (let i = 0; i < 15; i++) {
      if (i % 5 === 0) await attackRound(100 + i);
      if ((await login('127.0.0.200', PASSWORD)).status === 200) admitted++;
    }
    expect(admitted).toBe(15);

    // The admin's browser, from an address it never used (a phone on another network).
    const travelling = await login('127.0.0.202', PASSWORD, home.cookie);
    expect(travelling.status).toBe(200);

    // The browser's allowance is its own: a wrong password from it does not spend the attackers' wait, and the
    // attackers' wrong passwords did not spend it.
    for (let i = 0; i < 3; i++) expect((await login('127.0.0.203', 'typo', home.cookie)).status).toBe(401);
    expect((await login('127.0.0.203', PASSWORD, home.cookie)).status).toBe(200);
  }, 120_000);

  it('sends the device cookie only to the sign-in route, HttpOnly and SameSite=Strict', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/auth/login',
      remoteAddress: '127.0.0.200',
      payload: { username: 'boss', password: PASSWORD },
    });
    expect(res.statusCode).toBe(200);
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^fd_device=[0-9a-f]{64}; Path=\/auth\/login; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
  });
});
