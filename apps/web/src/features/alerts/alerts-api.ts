import { useQuery } from '@tanstack/react-query';
import type { Alert, DeliveryLogEntry, DemoInboxMail, ListResult } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';

export const alertsPath = '/alerts';

/** Open problems first, then the last week's resolved ones and events. Refreshed every 15 s while shown. */
export const useAlerts = (page: number, state: string) =>
  useQuery({
    queryKey: ['alerts', 'list', page, state],
    queryFn: ({ signal }) => api.get<ListResult<Alert>>('/api/alerts', { page, ...(state ? { state } : {}) }, signal),
    refetchInterval: 15_000,
  });

export const useDeliveryLog = (page: number) =>
  useQuery({
    queryKey: ['alerts', 'deliveries', page],
    queryFn: ({ signal }) => api.get<ListResult<DeliveryLogEntry>>('/api/alerts/deliveries', { page }, signal),
    refetchInterval: 15_000,
  });

/** The demo's local mail catcher; null outside demo mode. */
export const useDemoInbox = () =>
  useQuery({
    queryKey: ['alerts', 'demo-inbox'],
    queryFn: ({ signal }) => api.get<DemoInboxMail[] | null>('/api/alerts/demo-inbox', undefined, signal),
    refetchInterval: 5_000,
  });
