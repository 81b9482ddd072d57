import { useQuery } from '@tanstack/react-query';
import type { CloudZoneInfo } from '@fleetdesk/contract';
import { apiRequest } from '../../../lib/api-client.ts';

const enc = encodeURIComponent;

/** The same key as the cloud-flare feature's zone-info query: a zone action there refreshes this block too. */
export const zoneInfoKey = (domainId: string) => ['domains', 'cloud-flare', domainId, 'zone-info'] as const;

/** GET zone-info: a Cloudflare failure comes back as errorMessage with 200. */
export function useCloudZoneInfo(domainId: string, enabled: boolean) {
  return useQuery({
    queryKey: zoneInfoKey(domainId),
    queryFn: ({ signal }) =>
      apiRequest<CloudZoneInfo>(`/api/domains/${enc(domainId)}/cloud-flare/zone-info`, { signal }),
    enabled: Boolean(domainId) && enabled,
  });
}
