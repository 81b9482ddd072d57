import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type {
  Launch,
  LaunchBatch,
  LaunchBatchInput,
  LaunchBatchRow,
  LaunchInput,
  LaunchPlan,
  LaunchRegisterAloneInput,
  LaunchRegistrationCheck,
  LaunchRegistrationCheckInput,
  LaunchStageKey,
  ListResult,
  RegisterDomainResult,
} from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { createResourceHooks } from '../../lib/resource.ts';
import { usePlanItemsPage, usePlanQuery } from '../plans/plans-api.ts';

export const LAUNCHES_PATH = '/launches';
export const LAUNCH_NEW_PATH = '/launches/new';
export const launchPath = (id: string) => `/launches/${encodeURIComponent(id)}`;
export const LAUNCH_BATCH_NEW_PATH = '/launches/batches/new';
export const LAUNCH_BATCHES_PATH = '/launches/batches';
export const launchBatchPath = (id: string) => `/launches/batches/${encodeURIComponent(id)}`;

export const launchesApi = createResourceHooks<Launch>('launches');

const apiPath = (id: string) => `/api/launches/${encodeURIComponent(id)}`;
const launchKey = (id: string) => ['launches', 'item', id] as const;
const ACTIVE = new Set<Launch['state']>(['queued', 'running', 'waiting']);

/** A launch, polled every second while it runs or waits. */
export function useLaunch(id: string) {
  return useQuery({
    queryKey: launchKey(id),
    queryFn: ({ signal }) => api.get<Launch>(apiPath(id), undefined, signal),
    refetchInterval: (q) => (q.state.data && ACTIVE.has(q.state.data.state) ? 1000 : false),
  });
}

/** The value, once it has not changed for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** The live plan: a dry run of the form as it stands, read again when the input settles. */
export function useLaunchPlan(input: LaunchInput | null) {
  const settled = useDebounced(input, 500);
  return useQuery<LaunchPlan, ApiError>({
    queryKey: ['launches', 'plan', settled],
    queryFn: () => api.post<LaunchPlan>('/api/launches', { ...settled, dryRun: true }),
    enabled: !!settled?.domainName,
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 5000,
  });
}

export function useCreateLaunch() {
  const queryClient = useQueryClient();
  return useMutation<Launch, ApiError, LaunchInput>({
    mutationFn: (input) => api.post<Launch>('/api/launches', { ...input, dryRun: false }),
    onSuccess: (l) => {
      queryClient.setQueryData(launchKey(l._id), l);
      void queryClient.invalidateQueries({ queryKey: launchesApi.keys.lists() });
    },
  });
}

export type LaunchVerb =
  | { verb: 'cancel' | 'retry' }
  | { verb: 'retry-stage'; stage: LaunchStageKey }
  /** The stage the operator saw waiting: the API refuses the confirmation if another one waits. */
  | { verb: 'confirm'; stage: 'domain' | 'register' };

export function useLaunchVerb(id: string) {
  const queryClient = useQueryClient();
  return useMutation<Launch, ApiError, LaunchVerb>({
    mutationFn: (v) =>
      v.verb === 'retry-stage'
        ? api.post<Launch>(`${apiPath(id)}/steps/${v.stage}/retry`)
        : v.verb === 'confirm'
          ? api.post<Launch>(`${apiPath(id)}/confirm`, { stage: v.stage })
          : api.post<Launch>(`${apiPath(id)}/${v.verb}`),
    onSuccess: (l) => {
      queryClient.setQueryData(launchKey(id), l);
      void queryClient.invalidateQueries({ queryKey: launchesApi.keys.lists() });
    },
  });
}

/** A held console domain not at our registrator: availability and price at Namecheap, asked on demand. */
export function useRegistrationCheck() {
  return useMutation<LaunchRegistrationCheck, ApiError, LaunchRegistrationCheckInput>({
    mutationFn: (input) => api.post<LaunchRegistrationCheck>('/api/launches/registration/check', input),
  });
}

/** ...then registered on its own, the cost confirmed; the plan is read again (it now finds it in the account). */
export function useRegisterAlone() {
  const queryClient = useQueryClient();
  return useMutation<RegisterDomainResult, ApiError, LaunchRegisterAloneInput>({
    mutationFn: (input) => api.post<RegisterDomainResult>('/api/launches/registration', input),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['launches', 'plan'] }),
  });
}

// ---------------------------------------------------------------- many at once

const batchApiPath = (id: string) => `/api/launches/batches/${encodeURIComponent(id)}`;
const batchKey = (id: string) => ['launches', 'batch', id] as const;
// Waiting too: a launch confirmed on its own page moves the batch's counts.
const BATCH_ACTIVE = new Set<LaunchBatch['state']>(['planning', 'running', 'waiting_for_confirmation']);

export function useLaunchBatches(page: number) {
  return useQuery({
    queryKey: ['launches', 'batches', page],
    queryFn: ({ signal }) => api.get<ListResult<LaunchBatch>>('/api/launches/batches', { page }, signal),
    placeholderData: keepPreviousData,
  });
}

/** A batch, polled every second while it plans or runs. */
export const useLaunchBatch = (id: string) => usePlanQuery<LaunchBatch>(batchKey(id), batchApiPath(id), BATCH_ACTIVE);

/** The batch's names; `version` (its counts) reads them again whenever the batch moves. */
export const useLaunchBatchRows = (id: string, version: string) =>
  usePlanItemsPage<LaunchBatchRow>(['launches', 'batch-rows', id], `${batchApiPath(id)}/rows`, version, 'status');

export function useCreateLaunchBatch() {
  const queryClient = useQueryClient();
  return useMutation<LaunchBatch, ApiError, LaunchBatchInput>({
    mutationFn: (input) => api.post<LaunchBatch>('/api/launches/batches', input),
    onSuccess: (b) => {
      queryClient.setQueryData(batchKey(b._id), b);
      void queryClient.invalidateQueries({ queryKey: ['launches', 'batches'] });
    },
  });
}

export type LaunchBatchVerb = 'run' | 'pause' | 'resume' | 'cancel' | 'retry-failed' | 'confirm-all';

export function useLaunchBatchVerb(id: string) {
  const queryClient = useQueryClient();
  return useMutation<LaunchBatch, ApiError, LaunchBatchVerb>({
    mutationFn: (verb) => api.post<LaunchBatch>(`${batchApiPath(id)}/${verb}`),
    onSuccess: (b) => {
      queryClient.setQueryData(batchKey(id), b);
      void queryClient.invalidateQueries({ queryKey: ['launches', 'batch-rows', id] });
      void queryClient.invalidateQueries({ queryKey: ['launches', 'batches'] });
    },
  });
}
