import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ContentRestoreInput, ContentRestorePreview, ContentRestoreResult } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';

const snapshotPath = (id: string) => `/api/content-snapshots/${encodeURIComponent(id)}`;
const previewKey = (id: string) => ['content-snapshots', 'preview', id] as const;

/** A content change's restore, previewed: each file it changed, as it is now (read on the server each time). */
export function useRestorePreview(id: string | null) {
  return useQuery<ContentRestorePreview, ApiError>({
    queryKey: previewKey(id ?? ''),
    queryFn: ({ signal }) => api.get<ContentRestorePreview>(snapshotPath(id!), undefined, signal),
    enabled: Boolean(id),
    retry: false,
    staleTime: 0,
  });
}

/** Puts the files back (the ticked changed-since ones too); the audit trail and the domain's files change. */
export function useRestore(id: string) {
  const queryClient = useQueryClient();
  return useMutation<ContentRestoreResult, ApiError, ContentRestoreInput>({
    mutationFn: (input) => api.post<ContentRestoreResult>(`${snapshotPath(id)}/restore`, input),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: previewKey(id) });
      void queryClient.invalidateQueries({ queryKey: ['audit-log'] });
      void queryClient.invalidateQueries({ queryKey: ['domains', 'content-files'] });
    },
  });
}
