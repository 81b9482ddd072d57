/**
 * What a personal API token can never do, whatever its rules (decision 042): manage tokens, sessions or
 * two-factor (every /auth route but /auth/me), change users or roles, end sessions, or reveal a stored secret.
 * Checked by the auth guard on the route's pattern, so a route added later falls under the same rules.
 * Nor may a token change where a stored credential is sent (a panel URI, an SMTP host): that is a field of a
 * body, checked by each service through lib/credential-destinations.ts (decision 058).
 */
export function tokenMayCall(method: string, url: string): boolean {
  const path = url.split('?')[0] ?? '';
  if (path.startsWith('/auth/')) return method === 'GET' && path === '/auth/me';
  if (path === '/api/sessions' || path.startsWith('/api/sessions/')) return false;
  const write = method !== 'GET' && method !== 'HEAD';
  if (write && /^\/api\/(users|roles)(\/|$)/.test(path)) return false;
  if (/\/reveal$/.test(path)) return false;
  return true;
}
