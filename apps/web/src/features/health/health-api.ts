import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DomainHealth, DomainHealthCheck, FleetPlan, HealthSummary } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';

const enc = encodeURIComponent;
export const healthKeys = {
  domain: (id: string) => ['health', 'domain', id] as const,
  summary: ['health', 'summary'] as const,
};

export function useDomainHealth(domainId: string) {
  return useQuery<DomainHealth, ApiError>({
    queryKey: healthKeys.domain(domainId),
    queryFn: ({ signal }) => api.get<DomainHealth>(`/api/domains/${enc(domainId)}/health`, undefined, signal),
  });
}

export function useHealthSummary() {
  return useQuery<HealthSummary, ApiError>({
    queryKey: healthKeys.summary,
    queryFn: ({ signal }) => api.get<HealthSummary>('/api/health/summary', undefined, signal),
    retry: false,
  });
}

/** After a check or a fix: the tab, the list's badges and the dashboard read again. */
const refresh = (qc: ReturnType<typeof useQueryClient>, domainId: string, data?: DomainHealth) => {
  if (data) qc.setQueryData(healthKeys.domain(domainId), data);
  void qc.invalidateQueries({ queryKey: ['domains'] });
  void qc.invalidateQueries({ queryKey: healthKeys.summary });
};

export function useCheckNow(domainId: string) {
  const qc = useQueryClient();
  return useMutation<DomainHealth, ApiError, void>({
    mutationFn: () => api.post<DomainHealth>(`/api/domains/${enc(domainId)}/health/check`),
    onSuccess: (data) => refresh(qc, domainId, data),
  });
}

/**
 * The existing single-domain action that repairs a check (audited as it always is), then every check again so
 * the tab shows what the fix achieved.
 */
export async function runFix(domainId: string, c: DomainHealthCheck, hasZone: boolean) {
  const base = `/api/domains/${enc(domainId)}`;
  switch (c.fix) {
    case 'registrar_ns':
      await api.post(`${base}/registrar/name-servers`);
      break;
    case 'ssl':
      await api.put(`${base}/cloud-flare/settings/ssl`, { value: c.expected });
      break;
    case 'tls13':
      await api.put(`${base}/cloud-flare/settings/tls_1_3`, { value: c.expected });
      break;
    case 'waf_push':
      await api.post(`${base}/cloud-flare/update-firewall-rules`);
      break;
    case 'yandex_verify':
      await api.post(`${base}/yandex-webmaster/${hasZone ? 'verify-dns' : 'verify-file'}`);
      break;
    default:
      throw new Error('This check has no fix in the console');
  }
  return api.post<DomainHealth>(`${base}/health/check`);
}

export function useFix(domainId: string, hasZone: boolean) {
  const qc = useQueryClient();
  return useMutation<DomainHealth, ApiError, DomainHealthCheck>({
    mutationFn: (c) => runFix(domainId, c, hasZone),
    onSuccess: (data) => refresh(qc, domainId, data),
  });
}

/** "Fix all": a fleet plan of the fix over every domain failing the check (planned, then run from its page). */
export function useFixAll() {
  return useMutation<FleetPlan, ApiError, { check: string; action: { kind: 'waf_push' } }>({
    mutationFn: ({ check, action }) =>
      api.post<FleetPlan>('/api/fleet/plans', { selection: { filter: { failingCheck: check } }, action }),
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
