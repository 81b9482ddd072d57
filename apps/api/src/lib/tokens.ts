import crypto from 'node:crypto';

/** 256 random bits, sent as hex; only its SHA-256 is stored. */
export const newToken = () => crypto.randomBytes(32).toString('hex');
export const hashToken = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

/** Accepts `Bearer <token>` or the bare token. */
export function tokenFromHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^\s*(?:Bearer\s+)?([0-9a-f]{64})\s*$/i.exec(header);
  return m?.[1]?.toLowerCase();
}
