import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ImportItem, ImportPlan, ImportPlanInput } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { createResourceHooks } from '../../lib/resource.ts';
import { usePlanItemsPage, usePlanQuery } from '../plans/plans-api.ts';

export const IMPORTS_PATH = '/imports';
export const IMPORTS_NEW_PATH = '/imports/new';
export const importPath = (id: string) => `/imports/${encodeURIComponent(id)}`;

export const importsApi = createResourceHooks<ImportPlan>('imports');

const apiPath = (id: string) => `/api/imports/${encodeURIComponent(id)}`;
const planKey = (id: string) => ['imports', 'item', id] as const;
const ACTIVE = new Set(['planning', 'running']);

/** An import, polled every second while it is planned or run. */
export const useImport = (id: string) => usePlanQuery<ImportPlan>(planKey(id), apiPath(id), ACTIVE);

/** The import's names; `version` (its state and counts) reads them again whenever the import moves. */
export const useImportItems = (id: string, version: string) =>
  usePlanItemsPage<ImportItem>(['imports', 'items', id], `${apiPath(id)}/items`, version);

export function useCreateImport() {
  const queryClient = useQueryClient();
  return useMutation<ImportPlan, ApiError, ImportPlanInput>({
    mutationFn: (input) => api.post<ImportPlan>('/api/imports', input),
    onSuccess: (plan) => {
      queryClient.setQueryData(planKey(plan._id), plan);
      void queryClient.invalidateQueries({ queryKey: importsApi.keys.lists() });
    },
  });
}

/** What an import's page may ask: run it, cancel it, and the run's verbs every plan has. */
export type ImportVerb = 'run' | 'cancel' | 'pause' | 'resume' | 'retry-failed';

export function useImportVerb(id: string) {
  const queryClient = useQueryClient();
  return useMutation<ImportPlan, ApiError, ImportVerb>({
    mutationFn: (verb) => api.post<ImportPlan>(`${apiPath(id)}/${verb}`),
    onSuccess: (plan) => {
      queryClient.setQueryData(planKey(id), plan);
      void queryClient.invalidateQueries({ queryKey: ['imports', 'items', id] });
      void queryClient.invalidateQueries({ queryKey: importsApi.keys.lists() });
    },
  });
}
