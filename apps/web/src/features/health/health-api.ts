import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  HEALTH_FIX_ALL,
  type DomainHealth,
  type DomainHealthCheck,
  type FleetPlan,
  type HealthCheckKey,
} from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';

const enc = encodeURIComponent;
export const healthKeys = {
  domain: (id: string) => ['health', 'domain', id] as const,
};

export function useDomainHealth(domainId: string) {
  return useQuery<DomainHealth, ApiError>({
    queryKey: healthKeys.domain(domainId),
    queryFn: ({ signal }) => api.get<DomainHealth>(`/api/domains/${enc(domainId)}/health`, undefined, signal),
  });
}

/** After a check or a fix: the tab, the list's badges and the dashboard read again. */
const refresh = (qc: ReturnType<typeof useQueryClient>, domainId: string, data?: DomainHealth) => {
  if (data) qc.setQueryData(healthKeys.domain(domainId), data);
  void qc.invalidateQueries({ queryKey: ['domains'] });
  // The dashboard carries the health counts in its own answer.
  void qc.invalidateQueries({ queryKey: ['dashboard'] });
};

export function useCheckNow(domainId: string) {
  const qc = useQueryClient();
  return useMutation<DomainHealth, ApiError, void>({
    mutationFn: () => api.post<DomainHealth>(`/api/domains/${enc(domainId)}/health/check`),
    onSuccess: (data) => refresh(qc, domainId, data),
  });
}

/**
 * Fix: the API reads the check again and, while it is failing, runs the existing single-domain action that
 * repairs it with the value the check expects (audited as it always is), then the check again. A "Fix all"
 * fleet plan's steps run the same path.
 */
export function useFix(domainId: string) {
  const qc = useQueryClient();
  return useMutation<DomainHealth, ApiError, DomainHealthCheck>({
    mutationFn: (c) => api.post<DomainHealth>(`/api/domains/${enc(domainId)}/health/fix`, { check: c.check }),
    onSuccess: (data) => refresh(qc, domainId, data),
  });
}

/**
 * "Fix all": a fleet plan of the check's fix over the domains failing it (all of them, or those of the list's
 * filter), each domain to its own expected value; planned, then run from its page.
 */
export function useFixAll() {
  return useMutation<FleetPlan, ApiError, { check: HealthCheckKey; filter?: Record<string, string> }>({
    mutationFn: ({ check, filter }) => {
      const action = HEALTH_FIX_ALL[check];
      if (!action) throw new Error('This check has no fix in the console');
      return api.post<FleetPlan>('/api/fleet/plans', {
        selection: { filter: { ...filter, failingCheck: check } },
        action,
      });
    },
  });
}

export function useCheckSelection() {
  return useMutation<
    { jobId: string; jobNo: number },
    ApiError,
    { ids: string[] } | { filter: Record<string, string> }
  >({
    mutationFn: (selection) => api.post('/api/health/check', { selection }),
  });
}
