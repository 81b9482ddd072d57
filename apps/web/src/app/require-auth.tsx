import { Navigate, Outlet } from 'react-router';
import { useToken } from '../lib/token.ts';

/** Every route but /login needs a stored token. */
export function RequireAuth() {
  const token = useToken();
  if (!token) return <Navigate to="/login" replace />;
  return <Outlet />;
}
