import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ApiToken,
  ApiTokenCreated,
  ApiTokenInput,
  ApiTokenOptions,
  RecoveryCodes,
  Session,
  TwoFactorConfirmInput,
  TwoFactorSetup,
  TwoFactorStatus,
} from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';

/** One's own two-factor, API tokens and sessions: all under /auth, for the signed-in person only. */
export const profileKeys = {
  twoFactor: ['profile', 'two-factor'] as const,
  tokens: ['profile', 'tokens'] as const,
  tokenOptions: ['profile', 'token-options'] as const,
  sessions: ['profile', 'sessions'] as const,
};

export function useTwoFactorStatus() {
  return useQuery({
    queryKey: profileKeys.twoFactor,
    queryFn: ({ signal }) => api.get<TwoFactorStatus>('/auth/two-factor', undefined, signal),
  });
}

export function useBeginTwoFactorSetup() {
  return useMutation<TwoFactorSetup, ApiError, void>({
    mutationFn: () => api.post<TwoFactorSetup>('/auth/two-factor/setup'),
  });
}

/** Confirming the setup also lifts a setup-only session: who-am-I is read again. */
export function useEnableTwoFactor() {
  const queryClient = useQueryClient();
  return useMutation<RecoveryCodes, ApiError, string>({
    mutationFn: (code) => api.post<RecoveryCodes>('/auth/two-factor/enable', { code }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: profileKeys.twoFactor });
      void queryClient.invalidateQueries({ queryKey: ['auth', 'me'] });
    },
  });
}

export function useDisableTwoFactor() {
  const queryClient = useQueryClient();
  return useMutation<unknown, ApiError, TwoFactorConfirmInput>({
    mutationFn: (input) => api.post('/auth/two-factor/disable', input),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: profileKeys.twoFactor }),
  });
}

export function useRenewRecoveryCodes() {
  const queryClient = useQueryClient();
  return useMutation<RecoveryCodes, ApiError, TwoFactorConfirmInput>({
    mutationFn: (input) => api.post<RecoveryCodes>('/auth/two-factor/recovery-codes', input),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: profileKeys.twoFactor }),
  });
}

export function useApiTokens(enabled = true) {
  return useQuery({
    queryKey: profileKeys.tokens,
    queryFn: ({ signal }) => api.get<ApiToken[]>('/auth/tokens', undefined, signal),
    enabled,
  });
}

export function useApiTokenOptions(enabled = true) {
  return useQuery({
    queryKey: profileKeys.tokenOptions,
    queryFn: ({ signal }) => api.get<ApiTokenOptions>('/auth/tokens/options', undefined, signal),
    enabled,
  });
}

export function useCreateApiToken() {
  const queryClient = useQueryClient();
  return useMutation<ApiTokenCreated, ApiError, ApiTokenInput>({
    mutationFn: (input) => api.post<ApiTokenCreated>('/auth/tokens', input),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: profileKeys.tokens }),
  });
}

export function useRevokeApiToken() {
  const queryClient = useQueryClient();
  return useMutation<unknown, ApiError, string>({
    mutationFn: (id) => api.delete(`/auth/tokens/${encodeURIComponent(id)}`),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: profileKeys.tokens }),
  });
}

export function useOwnSessions(enabled = true) {
  return useQuery({
    queryKey: profileKeys.sessions,
    queryFn: ({ signal }) => api.get<Session[]>('/auth/sessions', undefined, signal),
    enabled,
  });
}

export function useEndOwnSession() {
  const queryClient = useQueryClient();
  return useMutation<unknown, ApiError, string>({
    mutationFn: (id) => api.delete(`/auth/sessions/${encodeURIComponent(id)}`),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: profileKeys.sessions }),
  });
}
