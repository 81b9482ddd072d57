import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FleetAction, FleetItem, FleetPlan, FleetPlanSummary, FleetRevertInput } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { exportCsv } from '../../lib/csv-export.ts';
import { createResourceHooks } from '../../lib/resource.ts';
import { usePlanItemsPage, usePlanQuery } from '../plans/plans-api.ts';

export {
  FLEET_NEW_PATH,
  FLEET_PATH,
  fleetPlanPath,
  type FleetNewState,
  type FleetSelectionSent,
} from './fleet-paths.ts';
import type { FleetSelectionSent } from './fleet-paths.ts';

export const fleetPlansApi = createResourceHooks<FleetPlanSummary>('fleet/plans');

const planPath = (id: string) => `/api/fleet/plans/${encodeURIComponent(id)}`;
const planKey = (id: string) => ['fleet/plans', 'item', id] as const;
const ACTIVE = new Set(['planning', 'running']);

/** A plan, polled every second while it is read or run. */
export const useFleetPlan = (id: string) => usePlanQuery<FleetPlan>(planKey(id), planPath(id), ACTIVE);

/** The plan's items; `version` (the plan's state and counts) makes them read again whenever the plan moves. */
export const useFleetItems = (id: string, version: string) =>
  usePlanItemsPage<FleetItem>(['fleet/plans', 'items', id], `${planPath(id)}/items`, version);

export function useCreateFleetPlan() {
  const queryClient = useQueryClient();
  return useMutation<FleetPlan, ApiError, { selection: FleetSelectionSent; action: FleetAction }>({
    mutationFn: (input) => api.post<FleetPlan>('/api/fleet/plans', input),
    onSuccess: (plan) => {
      queryClient.setQueryData(planKey(plan._id), plan);
      void queryClient.invalidateQueries({ queryKey: fleetPlansApi.keys.lists() });
    },
  });
}

export type FleetVerb = 'run' | 'pause' | 'resume' | 'cancel' | 'retry-failed';

export function useFleetVerb(id: string) {
  const queryClient = useQueryClient();
  return useMutation<FleetPlan, ApiError, FleetVerb>({
    mutationFn: (verb) => api.post<FleetPlan>(`${planPath(id)}/${verb}`),
    onSuccess: (plan) => {
      queryClient.setQueryData(planKey(id), plan);
      void queryClient.invalidateQueries({ queryKey: ['fleet/plans', 'items', id] });
      void queryClient.invalidateQueries({ queryKey: fleetPlansApi.keys.lists() });
    },
  });
}

export const downloadPlanCsv = (plan: Pick<FleetPlan, '_id' | 'planNo'>) =>
  exportCsv(`${planPath(plan._id)}/csv`, { fileName: `fleet-plan-${plan.planNo}.csv` });

/** "Revert this run" or an audit entry's "Revert": answers the new plan (read, then shown before anything runs). */
export function useRevert() {
  const queryClient = useQueryClient();
  return useMutation<FleetPlan, ApiError, FleetRevertInput>({
    mutationFn: (input) => api.post<FleetPlan>('/api/fleet/reverts', input),
    onSuccess: (plan) => {
      queryClient.setQueryData(planKey(plan._id), plan);
      void queryClient.invalidateQueries({ queryKey: fleetPlansApi.keys.lists() });
    },
  });
}

/** Ticks (or unticks) a revert's row that changed since its run. */
export function useForceFleetItem(planId: string) {
  const queryClient = useQueryClient();
  return useMutation<FleetItem, ApiError, { seq: number; force: boolean }>({
    mutationFn: ({ seq, force }) => api.post<FleetItem>(`${planPath(planId)}/items/${seq}/force`, { force }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: planKey(planId) });
      void queryClient.invalidateQueries({ queryKey: ['fleet/plans', 'items', planId] });
    },
  });
}
