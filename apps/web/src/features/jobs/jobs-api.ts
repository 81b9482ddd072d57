import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ACTIVE_JOB_STATES, type DomainReplacementInput, type Job, type ListResult } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import type { ListParams } from '../../lib/resource.ts';

/** How often screens poll while a job they show is queued or running. */
export const JOB_POLL_MS = 1500;

export const isActive = (job: Pick<Job, 'state'>) => ACTIVE_JOB_STATES.includes(job.state);

const keys = {
  all: ['jobs'] as const,
  list: (params: ListParams) => ['jobs', 'list', params] as const,
  item: (id: string) => ['jobs', 'item', id] as const,
};

/** GET /api/jobs, polled while any listed job is still running. */
export function useJobsList(params: ListParams, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: keys.list(params),
    queryFn: ({ signal }) => api.get<ListResult<Job>>('/api/jobs', params, signal),
    enabled: options.enabled,
    refetchInterval: (q) => (q.state.data?.items.some(isActive) ? JOB_POLL_MS : false),
  });
}

/** GET /api/jobs/{id}, polled until the job has finished. */
export function useJob(id: string | undefined) {
  return useQuery({
    queryKey: keys.item(id ?? ''),
    queryFn: ({ signal }) => api.get<Job>(`/api/jobs/${encodeURIComponent(id ?? '')}`, undefined, signal),
    enabled: Boolean(id),
    refetchInterval: (q) => (q.state.data && isActive(q.state.data) ? JOB_POLL_MS : false),
  });
}

/** The running (or queued) job of a kind on a domain, if any; polled while there is one. */
export function useActiveDomainJobs(domainId: string | undefined, kind?: string) {
  return useQuery({
    queryKey: ['jobs', 'active', domainId, kind ?? ''],
    queryFn: ({ signal }) =>
      api.get<ListResult<Job>>('/api/jobs', { domainId, kind, state: 'active', page: 1 }, signal),
    enabled: Boolean(domainId),
    refetchInterval: (q) => (q.state.data?.items.length ? JOB_POLL_MS : false),
  });
}

function useJobAction(action: 'cancel' | 'resume') {
  const queryClient = useQueryClient();
  return useMutation<Job, ApiError, string>({
    mutationFn: (id) => api.post<Job>(`/api/jobs/${encodeURIComponent(id)}/${action}`),
    onSuccess: (job) => {
      queryClient.setQueryData(keys.item(job._id), job);
      void queryClient.invalidateQueries({ queryKey: keys.all });
    },
  });
}
export const useCancelJob = () => useJobAction('cancel');
export const useResumeJob = () => useJobAction('resume');

export type DomainJobAction = 'generate-sitemap' | 'copy-content-files' | 'replacement';
export type DomainJobBody = { targetDomainId: string } | Partial<DomainReplacementInput> | undefined;

/** POST /api/domains/{id}/<action>: answers 202 with the queued job. */
export function useStartDomainJob(action: DomainJobAction) {
  const queryClient = useQueryClient();
  return useMutation<Job, ApiError, { domainId: string; body?: DomainJobBody }>({
    mutationFn: ({ domainId, body }) => api.post<Job>(`/api/domains/${encodeURIComponent(domainId)}/${action}`, body),
    onSuccess: (job) => {
      queryClient.setQueryData(keys.item(job._id), job);
      void queryClient.invalidateQueries({ queryKey: keys.all });
    },
  });
}
