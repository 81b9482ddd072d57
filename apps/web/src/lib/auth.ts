import type { LoginInput, LoginResult, LoginTwoFactorInput, Me, OidcConfig, SessionUser } from '@fleetdesk/contract';
import { ApiError, GENERIC_ERROR_MESSAGE, toApiError } from './api-error.ts';
import { api, apiFetch } from './api-client.ts';
import { clearToken, setToken } from './token.ts';

export interface AuthInfo {
  demo: boolean;
}

/** Where a sign-in step left us: signed in (the token stored), or a code is needed first. */
export type LoginOutcome =
  | { kind: 'signed-in'; user?: SessionUser; twoFactorSetupRequired: boolean }
  | { kind: 'code'; challenge: string; expiresInSeconds: number };

async function signInStep(path: string, body: unknown): Promise<LoginOutcome> {
  const response = await apiFetch(path, { method: 'POST', body, ignoreUnauthorized: true });
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    json = undefined;
  }
  if (!response.ok) throw toApiError(response.status, json);
  const data = (json as { data?: Partial<LoginResult> & Record<string, unknown> } | undefined)?.data;
  if (data && 'twoFactorRequired' in data && typeof data.challenge === 'string') {
    return { kind: 'code', challenge: data.challenge, expiresInSeconds: Number(data.expiresInSeconds) || 300 };
  }
  const token = response.headers.get('Authorization');
  if (!token) throw new ApiError(response.status, GENERIC_ERROR_MESSAGE);
  setToken(token);
  return {
    kind: 'signed-in',
    user: data?.user as SessionUser | undefined,
    twoFactorSetupRequired: data?.twoFactorSetupRequired === true,
  };
}

/** Signs in with the password; with two-factor on, answers the challenge of the code step instead of a token. */
export const login = (input: LoginInput) => signInStep('/auth/login', input);

/** The code step: a six-digit code or a recovery code, with the challenge the password step answered. */
export const loginWithCode = (input: LoginTwoFactorInput) => signInStep('/auth/login/two-factor', input);

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

/** Whether single sign-on is on (and the provider's name), and whether the password form is. */
export const fetchOidcConfig = (signal?: AbortSignal) => api.get<OidcConfig>('/auth/oidc/config', undefined, signal);

/** Where the browser starts a single sign-on: the API redirects it to the provider. */
export const OIDC_START_PATH = '/auth/oidc/start';

/** Trades the one-time code the callback brought back for a session (the token never travels in a URL). */
export const exchangeOidcCode = (code: string) => signInStep('/auth/oidc/exchange', { code });
