import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ChannelTestResult, NotificationChannel, NotificationChannelInput } from '@fleetdesk/contract';
import { api } from '../../lib/api-client.ts';
import type { ApiError } from '../../lib/api-error.ts';
import { createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const channelsApi = createResourceHooks<NotificationChannel, NotificationChannelInput>('notification-channels');
export const channelPaths = resourcePaths('notification-channels');

export type ChannelFormValues = {
  name: string;
  kind: string;
  enabled: boolean;
  smtpHost: string;
  smtpPort: number | null;
  smtpSecurity: string;
  smtpUser: string;
  smtpPassword: string | null;
  emailFrom: string;
  emailTo: string;
  webhookUrl: string;
  telegramBotToken: string | null;
  telegramChatId: string;
  telegramApiBase: string;
};

/** POST /api/notification-channels/{id}/test: a sample message now, answered with the provider's reply. */
export function useTestChannel() {
  const queryClient = useQueryClient();
  return useMutation<ChannelTestResult, ApiError, string>({
    mutationFn: (id) => api.post<ChannelTestResult>(`${channelsApi.path}/${encodeURIComponent(id)}/test`),
    onSuccess: (_r, id) => {
      void queryClient.invalidateQueries({ queryKey: channelsApi.keys.lists() });
      void queryClient.invalidateQueries({ queryKey: channelsApi.keys.item(id) });
    },
  });
}
