import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DomainTraffic, TrafficRange } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';

const enc = encodeURIComponent;
export const trafficKeys = {
  domain: (id: string, range: TrafficRange) => ['traffic', 'domain', id, range] as const,
};

/** The domain's kept traffic of the range (the API reads Cloudflare first when the zone was never read). */
export function useDomainTraffic(domainId: string, range: TrafficRange) {
  return useQuery<DomainTraffic, ApiError>({
    queryKey: trafficKeys.domain(domainId, range),
    queryFn: ({ signal }) => api.get<DomainTraffic>(`/api/domains/${enc(domainId)}/traffic`, { range }, signal),
    retry: false,
  });
}

/** Reads the domain's traffic from Cloudflare now; both ranges are read again from what was kept. */
export function useRefreshTraffic(domainId: string, range: TrafficRange) {
  const qc = useQueryClient();
  return useMutation<DomainTraffic, ApiError, void>({
    mutationFn: () => api.post<DomainTraffic>(`/api/domains/${enc(domainId)}/traffic/refresh?range=${enc(range)}`),
    onSuccess: (data) => {
      qc.setQueryData(trafficKeys.domain(domainId, range), data);
      void qc.invalidateQueries({ queryKey: ['traffic', 'domain', domainId] });
    },
    // A failed read is kept as the domain's error: show it beside the days.
    onError: () => void qc.invalidateQueries({ queryKey: ['traffic', 'domain', domainId] }),
  });
}
