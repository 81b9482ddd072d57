import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import ssh2 from 'ssh2';
import type { Client as SshClient, SFTPWrapper } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshHost, type SshHost } from './index.ts';
import { tokenizeShell } from './exec-commands.ts';
import { generateSshKeyPair } from './generate-key.ts';

const { Client } = ssh2;

const ed25519 = generateSshKeyPair('ed25519', { comment: 'test' });
const rsa = generateSshKeyPair('rsa', { bits: 2048 });
const stranger = generateSshKeyPair('ed25519');

function connect(
  host: SshHost,
  privateKey: string,
  username = 'root',
): Promise<{ client: SshClient; seenKey: string }> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let seenKey = '';
    client
      .on('ready', () => resolve({ client, seenKey }))
      .on('error', reject)
      .connect({
        // The client side needs Nagle off too, or every SFTP round trip waits for a delayed ACK.
        sock: net.connect({ host: host.host, port: host.port, noDelay: true }),
        username,
        privateKey,
        readyTimeout: 5_000,
        hostVerifier: (key: Buffer) => {
          seenKey = `SHA256:${crypto.createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
          return true;
        },
      });
  });
}

function exec(client: SshClient, command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    client.exec(command, (err, stream) => {
      if (err) return reject(err);
      let stdout = '';
      let stderr = '';
      let code = -1;
      stream.on('data', (d: Buffer) => (stdout += d.toString()));
      stream.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      stream.on('exit', (c: number) => (code = c));
      stream.on('close', () => resolve({ code, stdout, stderr }));
    });
  });
}

function openSftp(client: SshClient): Promise<SFTPWrapper> {
  return new Promise((resolve, reject) => client.sftp((err, sftp) => (err ? reject(err) : resolve(sftp))));
}

const call = <T>(fn: (cb: (err: Error | null | undefined, value?: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value as T))));

describe('ssh test host', () => {
  let host: SshHost;
  let client: SshClient;

  beforeAll(async () => {
    host = await startSshHost({ authorizedKeys: [ed25519.public] });
    host.addAuthorizedKey(rsa.public);
    ({ client } = await connect(host, ed25519.private));
  });
  afterAll(async () => {
    client?.end();
    await host?.close();
  });

  it('listens on loopback and presents the fingerprint it reports', async () => {
    expect(host.host).toBe('127.0.0.1');
    expect(host.hostKeyFingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    const { client: other, seenKey } = await connect(host, rsa.private);
    other.end();
    expect(seenKey).toBe(host.hostKeyFingerprint);
  });

  it('accepts RSA keys and refuses keys that are not authorised', async () => {
    const { client: viaRsa } = await connect(host, rsa.private);
    expect((await exec(viaRsa, 'true')).code).toBe(0);
    viaRsa.end();
    await expect(connect(host, stranger.private)).rejects.toThrow(/authentication methods failed/);
  });

  it('enforces the user name when one is configured', async () => {
    const strict = await startSshHost({ authorizedKeys: [ed25519.public], username: 'deploy' });
    try {
      await expect(connect(strict, ed25519.private, 'root')).rejects.toThrow(/authentication methods failed/);
      const { client: ok } = await connect(strict, ed25519.private, 'deploy');
      ok.end();
    } finally {
      await strict.close();
    }
  });

  it('answers df -Pk in POSIX format for existing paths and fails for missing ones', async () => {
    await fs.mkdir(path.join(host.rootDir, 'www'));
    const ok = await exec(client, "df -Pk '/www'");
    expect(ok.code).toBe(0);
    const lines = ok.stdout.trim().split('\n');
    expect(lines[0]).toBe('Filesystem     1024-blocks      Used Available Capacity Mounted on');
    const m = /^\S+\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)%\s+\/$/.exec(lines[1] ?? '');
    expect(m).not.toBeNull();
    const st = await fs.statfs(host.rootDir);
    expect(Number(m?.[1])).toBe(Math.floor((st.blocks * st.bsize) / 1024));

    const missing = await exec(client, "df -Pk '/nope'");
    expect(missing).toEqual({ code: 1, stdout: '', stderr: 'df: /nope: No such file or directory\n' });
  });

  it('runs test -d, mkdir -p, echo and chains; unknown commands exit 127', async () => {
    expect((await exec(client, 'test -d /a/b')).code).toBe(1);
    expect((await exec(client, 'mkdir -p /a/b && test -d /a/b && echo "it\'s there"')).stdout).toBe("it's there\n");
    expect((await exec(client, 'false || echo fallback')).stdout).toBe('fallback\n');
    const unknown = await exec(client, 'rm -rf /');
    expect(unknown.code).toBe(127);
    expect(unknown.stderr).toMatch(/rm: not found/);
    expect((await exec(client, 'cat /etc/passwd | head')).code).toBe(2);
  });

  it('serves SFTP over rootDir: write, read, stat, list, rename, remove', async () => {
    const sftp = await openSftp(client);
    try {
      await call<void>((cb) => sftp.mkdir('/site', cb));
      const content = crypto.randomBytes(300_000);
      await call<void>((cb) => sftp.writeFile('/site/index.html', content, cb));
      expect((await fs.readFile(path.join(host.rootDir, 'site/index.html'))).equals(content)).toBe(true);
      expect((await call<Buffer>((cb) => sftp.readFile('/site/index.html', cb))).equals(content)).toBe(true);
      expect((await call<ssh2.Stats>((cb) => sftp.stat('/site/index.html', cb))).size).toBe(content.length);

      const names = await call<ssh2.FileEntryWithStats[]>((cb) => sftp.readdir('/site', cb));
      expect(names.map((n) => n.filename)).toEqual(['index.html']);

      await call<void>((cb) => sftp.writeFile('/site/other.html', 'x', cb));
      await expect(call<void>((cb) => sftp.rename('/site/index.html', '/site/other.html', cb))).rejects.toThrow();
      await call<void>((cb) => sftp.rename('/site/index.html', '/site/moved.html', cb));
      await call<void>((cb) => sftp.unlink('/site/moved.html', cb));
      await call<void>((cb) => sftp.unlink('/site/other.html', cb));
      await call<void>((cb) => sftp.rmdir('/site', cb));
      await expect(fs.stat(path.join(host.rootDir, 'site'))).rejects.toThrow(/ENOENT/);
      await expect(call<ssh2.Stats>((cb) => sftp.stat('/site', cb))).rejects.toThrow(/No such file/);
      expect(await call<string>((cb) => sftp.realpath('a/../../b/.', cb))).toBe('/b');
    } finally {
      sftp.end();
    }
  });

  it('lists large directories in batches and ends with EOF', async () => {
    const dir = path.join(host.rootDir, 'many');
    await fs.mkdir(dir);
    await Promise.all(Array.from({ length: 250 }, (_, i) => fs.writeFile(path.join(dir, `f${i}.txt`), '')));
    const sftp = await openSftp(client);
    try {
      const names = await call<ssh2.FileEntryWithStats[]>((cb) => sftp.readdir('/many', cb));
      expect(names).toHaveLength(250);
    } finally {
      sftp.end();
    }
  });

  it('keeps paths inside rootDir', async () => {
    const sftp = await openSftp(client);
    try {
      await call<void>((cb) => sftp.writeFile('/../../../escape.txt', 'x', cb));
      expect(await fs.readFile(path.join(host.rootDir, 'escape.txt'), 'utf8')).toBe('x');
      await expect(fs.stat(path.join(path.dirname(host.rootDir), 'escape.txt'))).rejects.toThrow(/ENOENT/);
    } finally {
      sftp.end();
    }
  });

  it('counts accepted TCP connections', async () => {
    const before = host.connectionCount;
    const { client: extra } = await connect(host, ed25519.private);
    extra.end();
    expect(host.connectionCount).toBe(before + 1);
  });
});

describe('tokenizeShell', () => {
  it('splits words and honours quoting', () => {
    expect(tokenizeShell(`df -Pk '/a b'"/c"\\ d 'it'\\''s'`)).toEqual([
      { word: 'df' },
      { word: '-Pk' },
      { word: '/a b/c d' },
      { word: "it's" },
    ]);
    expect(tokenizeShell("echo 'open")).toBe('unterminated quoted string');
    expect(typeof tokenizeShell('echo $(id)')).toBe('string');
  });
});
