import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from './keys.ts';
import { SshError, type SshErrorCode } from './ssh-error.ts';
import { createSshPool, type SshPool } from './ssh-pool.ts';
import { testConnection } from './test-connection.ts';
import type { SshTarget } from './types.ts';

const key = generateKeyPair('ed25519');
const otherKey = generateKeyPair('ed25519');
const pkcs8Ed25519 = crypto.generateKeyPairSync('ed25519');

let host: SshHost;
let pool: SshPool;

const target = (over: Partial<SshTarget> = {}): SshTarget => ({
  serverId: 'srv-1',
  host: '127.0.0.1',
  port: host.port,
  username: 'root',
  privateKey: key.privateKey,
  knownHostFingerprint: null,
  ...over,
});

async function expectSshError(promise: Promise<unknown>, code: SshErrorCode, message?: string | RegExp) {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SshError);
  expect((err as SshError).code).toBe(code);
  if (message !== undefined) expect((err as SshError).message).toMatch(message);
  return err as SshError;
}

/** A port that was free a moment ago: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  host = await startSshHost({ authorizedKeys: [key.publicLine] });
  await fs.mkdir(path.join(host.rootDir, 'domains'));
});
afterAll(async () => {
  await host?.close();
});
afterEach(() => {
  pool?.closeAll();
});

describe('testConnection', () => {
  it('reports free and total space and the host fingerprint to store', async () => {
    pool = createSshPool();
    const result = await testConnection(pool, target(), '/domains');
    const st = await fs.statfs(host.rootDir);
    expect(result.ok).toBe(true);
    expect(result.totalBytes).toBe(Math.floor((st.blocks * st.bsize) / 1024) * 1024);
    expect(result.freeSpaceBytes).toBeGreaterThan(0);
    expect(result.freeSpaceBytes).toBeLessThanOrEqual(result.totalBytes);
    expect(result.hostFingerprint).toBe(host.hostKeyFingerprint);
  });

  it('accepts the stored fingerprint when it matches', async () => {
    pool = createSshPool();
    const result = await testConnection(pool, target({ knownHostFingerprint: host.hostKeyFingerprint }), '/domains');
    expect(result.hostFingerprint).toBe(host.hostKeyFingerprint);
  });

  it('quotes the path safely', async () => {
    pool = createSshPool();
    const odd = "/it's a $(dir)";
    await fs.mkdir(path.join(host.rootDir, odd));
    await expect(testConnection(pool, target(), odd)).resolves.toMatchObject({ ok: true });
  });

  it('fails with path_missing when domainsPath does not exist', async () => {
    pool = createSshPool();
    await expectSshError(
      testConnection(pool, target(), '/www'),
      'path_missing',
      /^Path \/www does not exist on the server$/,
    );
  });

  it('fails with auth_failed when the key is not accepted', async () => {
    pool = createSshPool();
    await expectSshError(
      testConnection(pool, target({ privateKey: otherKey.privateKey }), '/domains'),
      'auth_failed',
      /^Authentication failed for root@127\.0\.0\.1 \(the key was not accepted\)$/,
    );
    expect(pool.size).toBe(0);
  });

  it('fails with refused on a closed port', async () => {
    pool = createSshPool();
    const port = await closedPort();
    await expectSshError(
      testConnection(pool, target({ port }), '/domains'),
      'refused',
      `Connection refused by 127.0.0.1:${port}`,
    );
  });

  it('fails with timeout when the server accepts and never speaks', async () => {
    const silent = net.createServer(() => undefined);
    const sockets: net.Socket[] = [];
    silent.on('connection', (s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as AddressInfo;
    try {
      pool = createSshPool({ connectTimeoutMs: 300 });
      const started = Date.now();
      await expectSshError(
        testConnection(pool, target({ port }), '/domains'),
        'timeout',
        `Timed out after 0.3 s connecting to 127.0.0.1:${port}`,
      );
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('fails with host_key_changed when the stored fingerprint differs', async () => {
    pool = createSshPool();
    const stored = 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    await expectSshError(
      testConnection(pool, target({ knownHostFingerprint: stored }), '/domains'),
      'host_key_changed',
      `Host key changed for 127.0.0.1:${host.port}: expected ${stored}, got ${host.hostKeyFingerprint} ` +
        '(clear the stored fingerprint on the server page if this is expected)',
    );
  });

  it('detects a host that was replaced by one with another key', async () => {
    pool = createSshPool();
    const first = await testConnection(pool, target(), '/domains');
    const impostor = await startSshHost({ authorizedKeys: [key.publicLine] });
    try {
      await expectSshError(
        testConnection(pool, target({ port: impostor.port, knownHostFingerprint: first.hostFingerprint }), '/'),
        'host_key_changed',
      );
    } finally {
      await impostor.close();
    }
  });

  it('fails with no_key and bad_key before connecting', async () => {
    pool = createSshPool();
    const before = host.connectionCount;
    await expectSshError(testConnection(pool, target({ privateKey: '  ' }), '/domains'), 'no_key');
    await expectSshError(
      testConnection(pool, target({ privateKey: 'not a key' }), '/domains'),
      'bad_key',
      /^The key could not be parsed/,
    );
    expect(host.connectionCount).toBe(before);
  });
});

describe('ssh pool', () => {
  it('reuses one TCP connection for two calls, also after the fingerprint is stored', async () => {
    pool = createSshPool();
    const before = host.connectionCount;
    const first = await testConnection(pool, target(), '/domains');
    await testConnection(pool, target({ knownHostFingerprint: first.hostFingerprint }), '/domains');
    await pool.exec(target(), 'true');
    expect(host.connectionCount - before).toBe(1);
    expect(pool.size).toBe(1);
  });

  it('shares one connection between concurrent calls', async () => {
    pool = createSshPool();
    const before = host.connectionCount;
    const results = await Promise.all([1, 2, 3].map((n) => pool.exec(target(), `echo ${n}`)));
    expect(results.map((r) => r.stdout)).toEqual(['1\n', '2\n', '3\n']);
    expect(host.connectionCount - before).toBe(1);
  });

  it('opens a new connection when the target changes, and keeps servers apart', async () => {
    const second = generateKeyPair('ed25519');
    host.addAuthorizedKey(second.publicLine);
    pool = createSshPool();
    const before = host.connectionCount;
    await pool.exec(target(), 'true');
    await pool.exec(target({ privateKey: second.privateKey }), 'true');
    await pool.exec(target({ serverId: 'srv-2' }), 'true');
    expect(host.connectionCount - before).toBe(3);
    expect(pool.size).toBe(2);
  });

  it('lets a running call finish when the target changes under it', async () => {
    const second = generateKeyPair('ed25519');
    host.addAuthorizedKey(second.publicLine);
    pool = createSshPool();
    const slow = pool.exec(target(), 'sleep 0.3 && echo done');
    await new Promise((r) => setTimeout(r, 100));
    const switched = await pool.exec(target({ privateKey: second.privateKey }), 'echo new');
    expect(switched.stdout).toBe('new\n');
    expect((await slow).stdout).toBe('done\n');
    expect(pool.size).toBe(1);
  });

  it('closes idle connections and reconnects on demand', async () => {
    pool = createSshPool({ idleMs: 100 });
    const before = host.connectionCount;
    await pool.exec(target(), 'true');
    expect(pool.size).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(pool.size).toBe(0);
    await pool.exec(target(), 'true');
    expect(host.connectionCount - before).toBe(2);
  });

  it('close(serverId) and closeAll() end connections', async () => {
    pool = createSshPool();
    await pool.exec(target(), 'true');
    await pool.exec(target({ serverId: 'srv-2' }), 'true');
    pool.close('srv-1');
    expect(pool.size).toBe(1);
    pool.closeAll();
    expect(pool.size).toBe(0);
  });

  it('returns exit codes and output, and times out hung commands, dropping the connection', async () => {
    pool = createSshPool();
    expect(await pool.exec(target(), 'false || echo hi')).toMatchObject({ code: 0, stdout: 'hi\n', stderr: '' });
    const missing = await pool.exec(target(), 'nosuchcommand');
    expect(missing.code).toBe(127);
    expect(missing.hostFingerprint).toBe(host.hostKeyFingerprint);
    const started = Date.now();
    await expectSshError(
      pool.exec(target(), 'sleep 5', { timeoutMs: 200 }),
      'timeout',
      `The command timed out after 0.2 s on 127.0.0.1:${host.port}`,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(pool.size).toBe(0);
    await expect(pool.exec(target(), 'echo back')).resolves.toMatchObject({ stdout: 'back\n' });
  });

  it('runs SFTP sessions on the pooled connection, with a PKCS#8 ed25519 key', async () => {
    const pkcs8 = pkcs8Ed25519.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const { parsePrivateKey } = await import('./keys.ts');
    host.addAuthorizedKey(parsePrivateKey(pkcs8).publicLine);
    pool = createSshPool();
    const t = target({ privateKey: pkcs8 });
    const content = crypto.randomBytes(3 * 1024 * 1024);
    const started = Date.now();
    await pool.sftp(
      t,
      (sftp) =>
        new Promise<void>((res, rej) => sftp.writeFile('/domains/big.bin', content, (e) => (e ? rej(e) : res()))),
    );
    const back = await pool.sftp(
      t,
      (sftp) =>
        new Promise<Buffer>((res, rej) => sftp.readFile('/domains/big.bin', (e, data) => (e ? rej(e) : res(data)))),
    );
    // With Nagle left on, 3 MB takes seconds; with setNoDelay it is well under one.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(back.equals(content)).toBe(true);
    expect(pool.size).toBe(1);
  });
});
