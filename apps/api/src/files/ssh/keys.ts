import crypto from 'node:crypto';
import ssh2 from 'ssh2';
import type { ParsedKey } from 'ssh2';
import { RateLimitedError } from '../../http/errors.ts';
import { SshError } from './ssh-error.ts';

const { utils } = ssh2;

export type ParsedPrivateKey = {
  /** The SSH key type, e.g. `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`. */
  type: string;
  /** `SHA256:<base64 without padding>` of the public key, as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  /** The authorized_keys line for the server. */
  publicLine: string;
  /** The key in a format ssh2 reads (PKCS#8 input is converted); store and use this text. */
  privateKey: string;
};

export type GeneratedKeyPair = { privateKey: string; publicLine: string; fingerprint: string };

/** OpenSSH's fingerprint format for a public key blob. */
export function sshFingerprint(publicBlob: Buffer): string {
  return `SHA256:${crypto.createHash('sha256').update(publicBlob).digest('base64').replace(/=+$/, '')}`;
}

function sshString(b: Buffer | string): Buffer {
  const buf = typeof b === 'string' ? Buffer.from(b) : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(buf.length);
  return Buffer.concat([len, buf]);
}

/** Node cannot write ed25519 keys in OpenSSH format, and ssh2 cannot read them as PKCS#8: build the OpenSSH form. */
function ed25519ToOpenSsh(key: crypto.KeyObject, comment: string): string {
  const jwk = key.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d ?? '', 'base64url');
  const pub = Buffer.from(jwk.x ?? '', 'base64url');
  const publicBlob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = crypto.randomBytes(4);
  let secret = Buffer.concat([
    check,
    check,
    sshString('ssh-ed25519'),
    sshString(pub),
    sshString(Buffer.concat([seed, pub])),
    sshString(comment),
  ]);
  const padding = (8 - (secret.length % 8)) % 8;
  secret = Buffer.concat([secret, Buffer.from(Array.from({ length: padding }, (_, i) => i + 1))]);
  const nKeys = Buffer.alloc(4);
  nKeys.writeUInt32BE(1);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    nKeys,
    sshString(publicBlob),
    sshString(secret),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

const bad = (reason: string) => new SshError('bad_key', `The key could not be parsed: ${reason}`);
const encrypted = () => new SshError('bad_key', 'Encrypted keys are not supported; paste the key without a passphrase');

/** ssh2 reads PKCS#1, SEC1 and OpenSSH keys but not PKCS#8, so PKCS#8 is converted first. */
function fromPkcs8(pem: string): string {
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey(pem);
  } catch {
    throw bad('the PKCS#8 data is malformed');
  }
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return key.export({ type: 'pkcs1', format: 'pem' }).toString();
    case 'ec':
      return key.export({ type: 'sec1', format: 'pem' }).toString();
    case 'ed25519':
      return ed25519ToOpenSsh(key, '');
    default:
      throw bad(`${key.asymmetricKeyType ?? 'this'} keys are not supported`);
  }
}

/**
 * Parses a private key pasted by an operator. Throws SshError `bad_key` with a message naming what is wrong;
 * the message never contains key material.
 */
export function parsePrivateKey(text: string): ParsedPrivateKey {
  const input = text.replace(/\r\n?/g, '\n').trim();
  if (!input) throw bad('it is empty');
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type:\s*4,ENCRYPTED|^Encryption:\s*(?!none)\S/m.test(input)) {
    throw encrypted();
  }
  const normalised = /^-----BEGIN PRIVATE KEY-----/.test(input) ? fromPkcs8(input) : input;
  const parsed = utils.parseKey(normalised);
  if (parsed instanceof Error) {
    if (/passphrase/i.test(parsed.message)) throw encrypted();
    throw bad(parsed.message === 'Unsupported key format' ? 'the format is not recognised' : parsed.message);
  }
  const key: ParsedKey | undefined = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) throw bad('no key was found');
  if (!key.isPrivateKey()) throw bad('this is a public key; paste the private key');
  const blob = key.getPublicSSH();
  return {
    type: key.type,
    fingerprint: sshFingerprint(blob),
    publicLine: `${key.type} ${blob.toString('base64')}${key.comment ? ` ${key.comment}` : ''}`,
    privateKey: `${normalised.trim()}\n`,
  };
}

/**
 * A fresh key pair in OpenSSH format, commented "fleetdesk" so it is recognisable in authorized_keys.
 * Synchronous, for tests and tools: requests use generateKeyPairLimited, which keeps the main thread free.
 */
export function generateKeyPair(kind: 'ed25519' | 'rsa4096'): GeneratedKeyPair {
  // ssh2 now and then writes an ed25519 key whose public half lost a leading zero byte (about 1 in 300),
  // which its own parser then rejects: draw again rather than store an unusable key.
  for (let attempt = 1; ; attempt++) {
    const pair =
      kind === 'ed25519'
        ? utils.generateKeyPairSync('ed25519', { comment: 'fleetdesk' })
        : utils.generateKeyPairSync('rsa', { bits: 4096, comment: 'fleetdesk' });
    try {
      const { fingerprint, publicLine } = parsePrivateKey(pair.private);
      return { privateKey: pair.private, publicLine, fingerprint };
    } catch (err) {
      if (attempt >= 10) throw err;
    }
  }
}

const generateAsync = (kind: 'ed25519' | 'rsa4096') =>
  new Promise<{ private: string }>((resolve, reject) => {
    const cb = (err: Error | null, pair: { private: string }) => (err ? reject(err) : resolve(pair));
    if (kind === 'ed25519') utils.generateKeyPair('ed25519', { comment: 'fleetdesk' }, cb);
    else utils.generateKeyPair('rsa', { bits: 4096, comment: 'fleetdesk' }, cb);
  });

/** RSA-4096 takes seconds of CPU: at most this many run at once, the rest wait their turn. */
export const MAX_PARALLEL_GENERATIONS = 2;
/** Past this many waiting, a request is refused rather than queued. */
const MAX_WAITING = 16;
let running = 0;
const waiting: (() => void)[] = [];
const busyOwners = new Set<string>();

async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_PARALLEL_GENERATIONS) {
    if (waiting.length >= MAX_WAITING) {
      throw new RateLimitedError('The server is busy generating keys. Try again in a few seconds.', 5);
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * generateKeyPair for requests: off the main thread (Node's crypto runs it in the libuv pool), at most
 * MAX_PARALLEL_GENERATIONS at once, and one at a time per owner (a 429 for a second one), so no one can keep the
 * CPU busy for everyone.
 */
export async function generateKeyPairLimited(kind: 'ed25519' | 'rsa4096', owner: string): Promise<GeneratedKeyPair> {
  if (busyOwners.has(owner)) {
    throw new RateLimitedError('A key is already being generated for you. Try again when it is done.', 5);
  }
  busyOwners.add(owner);
  try {
    return await slot(async () => {
      for (let attempt = 1; ; attempt++) {
        const pair = await generateAsync(kind);
        try {
          const { fingerprint, publicLine } = parsePrivateKey(pair.private);
          return { privateKey: pair.private, publicLine, fingerprint };
        } catch (err) {
          // As in generateKeyPair: ssh2 now and then writes an ed25519 key it cannot read back.
          if (attempt >= 10) throw err;
        }
      }
    });
  } finally {
    busyOwners.delete(owner);
  }
}
