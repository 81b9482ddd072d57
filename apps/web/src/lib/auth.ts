import type { LoginInput, Me, SessionUser } from '@fleetdesk/contract';
import { ApiError, GENERIC_ERROR_MESSAGE, toApiError } from './api-error.ts';
import { api, apiFetch } from './api-client.ts';
import { clearToken, setToken } from './token.ts';

export interface AuthInfo {
  demo: boolean;
}

/** Signs in and stores the Authorization response header as-is. */
export async function login(input: LoginInput): Promise<SessionUser | undefined> {
  const response = await apiFetch('/auth/login', { method: 'POST', body: input, ignoreUnauthorized: true });
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (!response.ok) throw toApiError(response.status, body);
  const token = response.headers.get('Authorization');
  if (!token) throw new ApiError(response.status, GENERIC_ERROR_MESSAGE);
  setToken(token);
  return (body as { data?: { user?: SessionUser } } | undefined)?.data?.user;
}

/** Revokes the session on the server when possible; the local token goes either way. */
export async function logout(): Promise<void> {
  try {
    await apiFetch('/auth/logout', { method: 'POST', ignoreUnauthorized: true });
  } catch {
    // The server may be gone or the token already expired: signing out locally is what matters.
  }
  clearToken();
}

export const fetchMe = (signal?: AbortSignal) => api.get<Me>('/auth/me', undefined, signal);

export const fetchAuthInfo = (signal?: AbortSignal) => api.get<AuthInfo>('/auth/info', undefined, signal);
