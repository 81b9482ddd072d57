/**
 * The SSH layer against a real OpenSSH sshd. Runs only when REAL_SSHD_PORT is set:
 *   eval "$(bash scripts/real-sshd.sh)" && npx vitest run apps/api/src/files/ssh/real-sshd.test.ts; kill "$REAL_SSHD_PID"
 * Test-only reads of process.env: these variables configure the harness, not the app.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPair } from './keys.ts';
import { SshError, type SshErrorCode } from './ssh-error.ts';
import { createSshPool, type SshPool } from './ssh-pool.ts';
import { testConnection } from './test-connection.ts';
import type { SshTarget } from './types.ts';

const env = process.env;

async function expectSshError(promise: Promise<unknown>, code: SshErrorCode, message?: string | RegExp) {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SshError);
  expect((err as SshError).code).toBe(code);
  if (message !== undefined) expect((err as SshError).message).toMatch(message);
}

const call = <T>(fn: (cb: (err: Error | null | undefined, value?: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value as T))));

if (!env.REAL_SSHD_PORT) {
  // Reached only when the file is named explicitly without an sshd (npm test leaves it out): fail, never skip.
  it('needs a real OpenSSH sshd', () => {
    throw new Error('REAL_SSHD_PORT is not set: start an sshd with scripts/real-sshd.sh first');
  });
} else {
  describe('SSH layer against a real OpenSSH sshd', () => {
    const dir = env.REAL_SSHD_DIR ?? '/tmp';
    const target = (over: Partial<SshTarget> = {}): SshTarget => ({
      serverId: 'real-sshd',
      host: env.REAL_SSHD_HOST ?? '127.0.0.1',
      port: Number(env.REAL_SSHD_PORT),
      username: env.REAL_SSHD_USER ?? 'root',
      privateKey: fs.readFileSync(env.REAL_SSHD_KEY ?? '', 'utf8'),
      knownHostFingerprint: null,
      ...over,
    });
    let pool: SshPool;
    afterEach(() => pool?.closeAll());

    it('connects, reads free space and reports the fingerprint exactly as ssh-keygen prints it', async () => {
      pool = createSshPool();
      const result = await testConnection(pool, target(), dir);
      expect(result.ok).toBe(true);
      if (env.REAL_SSHD_FINGERPRINT) expect(result.hostFingerprint).toBe(env.REAL_SSHD_FINGERPRINT);
      const st = fs.statfsSync(dir);
      const total = st.blocks * st.bsize;
      expect(Math.abs(result.totalBytes - total)).toBeLessThan(total * 0.01 + 1024);
      expect(result.freeSpaceBytes).toBeGreaterThan(0);
      expect(result.freeSpaceBytes).toBeLessThanOrEqual(result.totalBytes);
      // The stored fingerprint is then accepted, on the same pooled connection.
      await testConnection(pool, target({ knownHostFingerprint: result.hostFingerprint }), dir);
      expect(pool.size).toBe(1);
    });

    it('quotes paths with spaces and quotes', async () => {
      pool = createSshPool();
      const odd = path.join(dir, "it's a $(dir)");
      fs.mkdirSync(odd, { recursive: true });
      await expect(testConnection(pool, target(), odd)).resolves.toMatchObject({ ok: true });
    });

    it('fails with auth_failed for a key the server does not know', async () => {
      pool = createSshPool();
      const t = target({ privateKey: generateKeyPair('ed25519').privateKey });
      await expectSshError(
        testConnection(pool, t, dir),
        'auth_failed',
        `Authentication failed for ${t.username}@${t.host} (the key was not accepted)`,
      );
    });

    it('fails with path_missing for a missing domains path', async () => {
      pool = createSshPool();
      const missing = path.join(dir, 'no-such-dir');
      await expectSshError(testConnection(pool, target(), missing), 'path_missing', `Path ${missing} does not exist`);
    });

    it('fails with host_key_changed when the stored fingerprint differs', async () => {
      pool = createSshPool();
      const stored = 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
      await expectSshError(
        testConnection(pool, target({ knownHostFingerprint: stored }), dir),
        'host_key_changed',
        /^Host key changed for 127\.0\.0\.1:\d+: expected SHA256:A{43}, got SHA256:\S+ \(clear the stored/,
      );
    });

    it('serves SFTP as the test host does: write, read, list, no overwrite on rename', async () => {
      pool = createSshPool();
      const base = path.join(dir, 'sftp-check');
      fs.rmSync(base, { recursive: true, force: true });
      await pool.sftp(target(), async (sftp: SFTPWrapper) => {
        await call<void>((cb) => sftp.mkdir(base, cb));
        await call<void>((cb) => sftp.writeFile(`${base}/a.txt`, 'alpha', cb));
        await call<void>((cb) => sftp.writeFile(`${base}/b.txt`, 'beta', cb));
        expect((await call<Buffer>((cb) => sftp.readFile(`${base}/a.txt`, cb))).toString()).toBe('alpha');
        const names = await call<{ filename: string }[]>((cb) => sftp.readdir(base, cb));
        expect(names.map((n) => n.filename).sort()).toEqual(['a.txt', 'b.txt']);
        await expect(call<void>((cb) => sftp.rename(`${base}/a.txt`, `${base}/b.txt`, cb))).rejects.toThrow();
        await expect(call<unknown>((cb) => sftp.stat(`${base}/none`, cb))).rejects.toThrow(/No such file/);
      });
      fs.rmSync(base, { recursive: true, force: true });
    });
  });
}
