import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/harness.ts';
import type { Database } from '../../db/client.ts';
import { attemptKeys, createLoginThrottle, type LoginThrottlePolicy } from './login-throttle.ts';

let database: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ database, drop } = await createTestDatabase());
});
afterAll(async () => drop?.());
beforeEach(async () => database.exec('TRUNCATE login_attempts'));

const policy: LoginThrottlePolicy = {
  freeAttempts: 3,
  delayMs: 10_000,
  maxDelayMs: 60_000,
  windowMs: 15 * 60_000,
  addressMaxFailures: 10,
  usernameSlowAfter: 20,
};

function clocked(p: Partial<LoginThrottlePolicy> = {}) {
  const clock = { t: 1_000_000_000_000 };
  const th = createLoginThrottle({ database, policy: { ...policy, ...p }, now: () => clock.t });
  return { th, clock };
}

describe('login throttle (in the database)', () => {
  it('admits the free attempts, then makes each further attempt wait longer', async () => {
    const { th, clock } = clocked();
    for (let i = 0; i < 3; i++) expect((await th.admit('alice', '10.0.0.1')).ok).toBe(true);
    expect(await th.admit('alice', '10.0.0.1')).toEqual({ ok: false, retryAfterSeconds: 10 });
    clock.t += 10_000;
    expect((await th.admit('alice', '10.0.0.1')).ok).toBe(true);
    // The delay doubles: 20 s after the fourth failure.
    clock.t += 10_000;
    expect(await th.admit('alice', '10.0.0.1')).toEqual({ ok: false, retryAfterSeconds: 10 });
    clock.t += 10_000;
    expect((await th.admit('alice', '10.0.0.1')).ok).toBe(true);
  });

  it('throttles the (username, address) pair, not the username: another address is not locked out', async () => {
    const { th } = clocked();
    for (let i = 0; i < 3; i++) await th.admit('admin', '10.6.6.6');
    expect((await th.admit('admin', '10.6.6.6')).ok).toBe(false);
    expect((await th.admit('admin', '10.0.0.2')).ok).toBe(true);
    expect((await th.admit('ADMIN ', '10.6.6.6')).ok).toBe(false);
  });

  it('a success forgets the pair and does not count against the address', async () => {
    const { th } = clocked({ addressMaxFailures: 4 });
    for (let i = 0; i < 2; i++) await th.admit('bob', '10.0.0.3');
    const ok = await th.admit('bob', '10.0.0.3');
    if (!ok.ok) throw new Error('expected admission');
    await th.succeed(ok.keys, 'd'.repeat(64));
    // Three more for the pair are free again, and the address has 2 failures of its 4.
    expect((await th.admit('bob', '10.0.0.3')).ok).toBe(true);
    expect((await th.admit('bob', '10.0.0.3')).ok).toBe(true);
    expect((await th.admit('carol', '10.0.0.3')).ok).toBe(false);
  });

  it('limits failures per address across usernames, until the window ends', async () => {
    const { th, clock } = clocked();
    for (let i = 0; i < 10; i++) expect((await th.admit(`ghost${i}`, '10.0.0.4')).ok).toBe(true);
    const refused = await th.admit('ghost99', '10.0.0.4');
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 15 * 60 });
    clock.t += 15 * 60_000 + 1;
    expect((await th.admit('ghost99', '10.0.0.4')).ok).toBe(true);
  });

  it('slows, but never locks, a username guessed from many addresses', async () => {
    const { th, clock } = clocked();
    for (let i = 0; i < 20; i++) expect((await th.admit('admin', `10.1.0.${i}`)).ok).toBe(true);
    expect(await th.admit('admin', '10.1.1.1')).toEqual({ ok: false, retryAfterSeconds: 10 });
    clock.t += 10_000;
    expect((await th.admit('admin', '10.1.1.1')).ok).toBe(true);
  });

  describe('known addresses and devices (issue 26)', () => {
    const DEV = 'a'.repeat(64);
    const signIn = async (th: ReturnType<typeof clocked>['th'], user: string, ip: string, device?: string) => {
      const r = await th.admit(user, ip, device);
      if (!r.ok) throw new Error('expected admission');
      await th.succeed(r.keys, device ?? DEV);
      return r.keys;
    };
    /** Many addresses guess until the username's pool admits one attempt per delay. */
    const flood = async (th: ReturnType<typeof clocked>['th'], user: string) => {
      for (let i = 0; i < 25; i++) await th.admit(user, `10.9.0.${i}`);
      expect((await th.admit(user, '10.9.1.1')).ok).toBe(false);
    };

    it('an address that signed in before keeps its allowance while the pool is used up', async () => {
      const { th } = clocked();
      await signIn(th, 'admin', '10.2.0.1');
      await flood(th, 'admin');
      const again = await th.admit('admin', '10.2.0.1');
      expect(again).toMatchObject({ ok: true, keys: { trust: 'address' } });
      // Its own failures still count for its own pair: three free, then a wait.
      for (let i = 0; i < 2; i++) expect((await th.admit('admin', '10.2.0.1')).ok).toBe(true);
      expect((await th.admit('admin', '10.2.0.1')).ok).toBe(false);
      // Its attempts did not spend the pool: a fresh address is refused as before, no later.
      expect((await th.admit('admin', '10.9.1.2')).ok).toBe(false);
    });

    it('a device that signed in before keeps its allowance from any address, even a crowded one', async () => {
      const { th } = clocked({ addressMaxFailures: 5 });
      await signIn(th, 'admin', '10.3.0.1', DEV);
      await flood(th, 'admin');
      // The attackers share the admin's new address and used up its limit too.
      for (let i = 0; i < 5; i++) await th.admit(`other${i}`, '10.3.0.99');
      expect((await th.admit('admin', '10.3.0.99')).ok).toBe(false);
      expect(await th.admit('admin', '10.3.0.99', DEV)).toMatchObject({ ok: true, keys: { trust: 'device' } });
      // The token is trusted for the username it signed in as, not for another.
      expect((await th.admit('root', '10.3.0.98', DEV)).ok).toBe(true);
      expect((await th.admit('root', '10.3.0.98', DEV)) as { keys?: { trust?: string } }).not.toMatchObject({
        keys: { trust: 'device' },
      });
    });

    it('an unknown token and an expired mark give no allowance', async () => {
      const { th, clock } = clocked({ trustMs: 60 * 60_000 });
      await signIn(th, 'admin', '10.4.0.1', DEV);
      await flood(th, 'admin');
      expect((await th.admit('admin', '10.4.0.2', 'b'.repeat(64))).ok).toBe(false);
      clock.t += 60 * 60_000 + 1;
      await flood(th, 'admin');
      expect((await th.admit('admin', '10.4.0.1', DEV)).ok).toBe(false);
    });
  });

  it('counts a concurrent burst atomically: at most the free attempts are admitted', async () => {
    const { th } = clocked();
    const results = await Promise.all(Array.from({ length: 100 }, () => th.admit('dave', '10.0.0.5')));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
  });

  it('keeps no username in clear in its keys', () => {
    const keys = attemptKeys('MySecretPassw0rd', '10.0.0.6');
    expect(JSON.stringify(keys)).not.toMatch(/mysecret/i);
    expect(keys.address).toBe('addr:10.0.0.6');
  });
});
