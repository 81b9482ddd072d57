import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Single sign-on bound to the browser that started it (login CSRF, issue 42): the start sets a cookie holding the
 * SHA-256 of the state, the callback sets one holding the SHA-256 of the one-time code, and each step refuses a
 * request whose cookie does not match. A callback or `/login/sso?code=…` address opened in another browser signs
 * nobody in there. HttpOnly, SameSite=Lax (the provider's redirect back is a top-level GET from another site),
 * each sent only to the route that checks it, for as long as that step may take.
 */
export const OIDC_STATE_COOKIE = 'fd_oidc_state';
export const OIDC_EXCHANGE_COOKIE = 'fd_oidc_exchange';

const PATHS = { [OIDC_STATE_COOKIE]: '/auth/oidc/callback', [OIDC_EXCHANGE_COOKIE]: '/auth/oidc/exchange' } as const;
type Name = keyof typeof PATHS;

/** The hash a request's cookie holds, when it holds a well-formed one. */
export function oidcCookieOf(req: FastifyRequest, name: Name): string | undefined {
  const header = req.headers.cookie;
  if (!header || header.length > 8192) return undefined;
  for (const part of header.split(';')) {
    const [k, v] = part.split('=', 2).map((s) => s.trim());
    if (k === name && v && /^[0-9a-f]{64}$/.test(v)) return v;
  }
  return undefined;
}

/** Sets the cookie (or clears it with an empty value); `secure` when the console is served over https. */
export function setOidcCookie(reply: FastifyReply, name: Name, value: string, maxAgeSeconds: number, secure: boolean) {
  const age = value ? maxAgeSeconds : 0;
  // Fastify adds each set-cookie header to the ones already set.
  reply.header(
    'set-cookie',
    `${name}=${value}; Path=${PATHS[name]}; Max-Age=${age}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
  );
}
