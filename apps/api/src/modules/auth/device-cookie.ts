import type { FastifyReply, FastifyRequest } from 'fastify';
import { newToken } from '../../lib/tokens.ts';

/**
 * The device cookie (OWASP's "device cookies" against lockout, issue 26): a browser that has signed in as a user
 * holds a random token, and its attempts for that user are counted on their own, apart from the pool that
 * anonymous addresses share, so an attacker's failures never spend its allowance. The token only proves "this
 * browser signed in as this user before"; the database keeps its hash (login-throttle.ts), never the token.
 */
export const DEVICE_COOKIE = 'fd_device';
/** A device (or an address) is trusted this long after its last successful sign-in. */
export const DEVICE_TRUST_MS = 90 * 24 * 60 * 60_000;

/** The device token the request carries, if it carries a well-formed one. */
export function deviceTokenOf(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header || header.length > 8192) return undefined;
  for (const part of header.split(';')) {
    const [name, value] = part.split('=', 2).map((s) => s.trim());
    if (name === DEVICE_COOKIE && value && /^[0-9a-f]{64}$/.test(value)) return value;
  }
  return undefined;
}

/** The token to keep after a success: the one the browser holds, or a new one. */
export const deviceTokenAfterSuccess = (held: string | undefined) => held ?? newToken();

/** Sent only to the sign-in route, never readable by scripts, never sent from another site. */
export function setDeviceCookie(req: FastifyRequest, reply: FastifyReply, token: string) {
  const secure = req.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${DEVICE_COOKIE}=${token}; Path=/auth/login; Max-Age=${Math.floor(DEVICE_TRUST_MS / 1000)}; HttpOnly; SameSite=Strict${secure}`,
  );
}
