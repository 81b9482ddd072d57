import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type SecretBox = {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
};

const VERSION = 'v1';

/** AES-256-GCM; the sealed form is `v1:<iv>:<tag>:<ciphertext>`, each part base64. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('The app key must be 32 bytes');
  return {
    encrypt(plain) {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
    },
    decrypt(sealed) {
      const [v, iv, tag, ct] = sealed.split(':');
      if (v !== VERSION || !iv || !tag || ct === undefined) throw new Error('Unreadable secret');
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * APP_SECRET_KEY may be 64 hex characters, 44 base64 characters, or any longer passphrase (hashed to 32 bytes).
 * Without it, a random key is kept in DATA_DIR/app.key with mode 0600.
 */
export function loadAppKey(opts: { secret?: string; dataDir: string }): Buffer {
  if (opts.secret) return parseKey(opts.secret);
  const file = path.join(opts.dataDir, 'app.key');
  if (fs.existsSync(file)) return parseKey(fs.readFileSync(file, 'utf8').trim());
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const key = crypto.randomBytes(32);
  fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

function parseKey(s: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex');
  if (/^[A-Za-z0-9+/]{43}=$/.test(s)) return Buffer.from(s, 'base64');
  return crypto.createHash('sha256').update(s, 'utf8').digest();
}
