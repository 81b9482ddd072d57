import crypto from 'node:crypto';
import ssh2 from 'ssh2';
import { describe, expect, it } from 'vitest';
import { generateKeyPair, generateKeyPairLimited, parsePrivateKey, sshFingerprint } from './keys.ts';
import { SshError } from './ssh-error.ts';

/** The fingerprint computed independently from an authorized_keys line. */
const fingerprintOfLine = (line: string) =>
  `SHA256:${crypto
    .createHash('sha256')
    .update(Buffer.from(line.split(' ')[1] ?? '', 'base64'))
    .digest('base64')
    .replace(/=+$/, '')}`;

function expectBadKey(text: string, message: string | RegExp) {
  try {
    parsePrivateKey(text);
  } catch (err) {
    expect(err).toBeInstanceOf(SshError);
    expect((err as SshError).code).toBe('bad_key');
    expect((err as SshError).message).toMatch(message);
    return err as SshError;
  }
  throw new Error('expected parsePrivateKey to throw');
}

describe('generateKeyPair', () => {
  it('makes ed25519 keys in OpenSSH format with a matching public line and fingerprint', () => {
    const pair = generateKeyPair('ed25519');
    expect(pair.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    expect(pair.publicLine).toMatch(/^ssh-ed25519 AAAA[A-Za-z0-9+/=]+ fleetdesk$/);
    expect(pair.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(pair.fingerprint).toBe(fingerprintOfLine(pair.publicLine));
    expect(parsePrivateKey(pair.privateKey)).toMatchObject({ type: 'ssh-ed25519', fingerprint: pair.fingerprint });
  });

  it('makes 4096-bit RSA keys', () => {
    const pair = generateKeyPair('rsa4096');
    expect(pair.publicLine).toMatch(/^ssh-rsa \S+ fleetdesk$/);
    const parsed = ssh2.utils.parseKey(pair.privateKey) as ssh2.ParsedKey;
    expect(crypto.createPublicKey(parsed.getPublicPEM()).asymmetricKeyDetails?.modulusLength).toBe(4096);
    expect(pair.fingerprint).toBe(fingerprintOfLine(pair.publicLine));
  });
});

describe('parsePrivateKey', () => {
  const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pkcs1 = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const rsaPkcs8 = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  it('reads PKCS#1 RSA keys, with Windows line endings too', () => {
    const parsed = parsePrivateKey(pkcs1.replace(/\n/g, '\r\n'));
    expect(parsed.type).toBe('ssh-rsa');
    expect(parsed.fingerprint).toBe(fingerprintOfLine(parsed.publicLine));
    expect(parsed.privateKey).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
  });

  it('converts PKCS#8 RSA to PKCS#1 with the same public key', () => {
    const parsed = parsePrivateKey(rsaPkcs8);
    expect(parsed.privateKey).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(parsed.fingerprint).toBe(parsePrivateKey(pkcs1).fingerprint);
  });

  it('converts PKCS#8 ed25519 to OpenSSH format with the same public key', () => {
    const ed = crypto.generateKeyPairSync('ed25519');
    const parsed = parsePrivateKey(ed.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    expect(parsed.type).toBe('ssh-ed25519');
    expect(parsed.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    const raw = Buffer.from(ed.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
    const blob = Buffer.concat([
      Buffer.from([0, 0, 0, 11]),
      Buffer.from('ssh-ed25519'),
      Buffer.from([0, 0, 0, 32]),
      raw,
    ]);
    expect(parsed.fingerprint).toBe(sshFingerprint(blob));
    // The converted key really signs: ssh2 verifies a signature made with it against the public key.
    const key = ssh2.utils.parseKey(parsed.privateKey) as ssh2.ParsedKey;
    const data = Buffer.from('proof');
    expect(crypto.verify(null, data, ed.publicKey, key.sign(data))).toBe(true);
  });

  it('converts PKCS#8 EC keys', () => {
    const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const parsed = parsePrivateKey(ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    expect(parsed.type).toBe('ecdsa-sha2-nistp256');
  });

  it('refuses encrypted keys in every format with one clear message', () => {
    const message = 'Encrypted keys are not supported; paste the key without a passphrase';
    // Draw until ssh2 can read its own key back (see generateKeyPair), so only the encryption is under test.
    let openssh = ssh2.utils.generateKeyPairSync('ed25519', { passphrase: 'pw', cipher: 'aes256-ctr', rounds: 4 });
    while (ssh2.utils.parseKey(openssh.private, 'pw') instanceof Error) {
      openssh = ssh2.utils.generateKeyPairSync('ed25519', { passphrase: 'pw', cipher: 'aes256-ctr', rounds: 4 });
    }
    expectBadKey(openssh.private, message);
    expectBadKey(
      rsa.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }).toString(),
      message,
    );
    expectBadKey(
      rsa.privateKey.export({ type: 'pkcs1', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }).toString(),
      message,
    );
  });

  it('names what is wrong with anything else, without echoing key material', () => {
    expectBadKey('', 'The key could not be parsed: it is empty');
    expectBadKey('hello', 'The key could not be parsed: the format is not recognised');
    expectBadKey(generateKeyPair('ed25519').publicLine, 'The key could not be parsed: this is a public key');
    const broken = pkcs1.replace(/\n[A-Za-z0-9+/]{64}\n/, '\n');
    const err = expectBadKey(broken, /^The key could not be parsed: /);
    const bodyLines = pkcs1.split('\n').filter((l) => /^[A-Za-z0-9+/=]{20,}$/.test(l));
    for (const l of bodyLines) expect(err.message).not.toContain(l.slice(0, 20));
    expectBadKey('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', /PKCS#8 data is malformed/);
  });
});

describe('generateKeyPair, many times', () => {
  // ssh2 writes a malformed ed25519 key about once in 300 draws; every key handed out must parse.
  it('always returns a key that parses', () => {
    for (let i = 0; i < 1500; i++) {
      const pair = generateKeyPair('ed25519');
      expect(parsePrivateKey(pair.privateKey).fingerprint).toBe(pair.fingerprint);
    }
  });
});

describe('generateKeyPairLimited', () => {
  it('generates RSA-4096 off the main thread: timers keep firing while it runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      const pair = await generateKeyPairLimited('rsa4096', 'owner-a');
      // A synchronous generation would hold the event loop until it returned, so no tick could land before.
      expect(ticks).toBeGreaterThan(0);
      expect(pair.publicLine).toMatch(/^ssh-rsa \S+ fleetdesk$/);
      expect(parsePrivateKey(pair.privateKey).fingerprint).toBe(pair.fingerprint);
    } finally {
      clearInterval(timer);
    }
  });

  it('runs one generation at a time per owner, and answers a second one with 429', async () => {
    const first = generateKeyPairLimited('ed25519', 'owner-b');
    const second = generateKeyPairLimited('ed25519', 'owner-b');
    const other = generateKeyPairLimited('ed25519', 'owner-c');
    await expect(second).rejects.toMatchObject({
      status: 429,
      message: expect.stringMatching(/already being generated/),
    });
    expect((await first).publicLine).toMatch(/^ssh-ed25519 /);
    expect((await other).publicLine).toMatch(/^ssh-ed25519 /);
    // Once the first is done, the owner may generate again.
    expect((await generateKeyPairLimited('ed25519', 'owner-b')).publicLine).toMatch(/^ssh-ed25519 /);
  });
});
