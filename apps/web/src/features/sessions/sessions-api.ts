import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Session } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { createResourceHooks } from '../../lib/resource.ts';

/** Everyone's sessions (cnv:users): GET /api/sessions, DELETE /api/sessions/:id. */
export const sessionsApi = createResourceHooks<Session>('sessions');

export function useEndSession() {
  const queryClient = useQueryClient();
  return useMutation<unknown, ApiError, string>({
    mutationFn: (id) => api.delete(`/api/sessions/${encodeURIComponent(id)}`),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: sessionsApi.keys.all }),
  });
}
