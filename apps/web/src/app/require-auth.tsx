import { Navigate, Outlet, useLocation } from 'react-router';
import { useToken } from '../lib/token.ts';
import { useMe } from './auth-queries.ts';

/** Every route but /login needs a stored token; a session that must set up two-factor sees only that. */
export function RequireAuth() {
  const token = useToken();
  const me = useMe(token);
  const { pathname } = useLocation();
  if (!token) return <Navigate to="/login" replace />;
  if (me.data?.twoFactorSetupRequired && pathname !== '/profile' && pathname !== '/logout') {
    return <Navigate to="/profile?tab=two-factor" replace />;
  }
  return <Outlet />;
}
