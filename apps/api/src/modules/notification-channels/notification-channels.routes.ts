import type { FastifyInstance } from 'fastify';
import {
  ChannelTestResultSchema,
  IdParamsSchema,
  NotificationChannelInputSchema,
  NotificationChannelSchema,
  NotificationChannelUpdateSchema,
  dataOf,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import { mountReveal } from '../../lib/secrets.ts';
import type { NotificationChannelsService } from './notification-channels.service.ts';

// Channels hold credentials: only the admin rule manages them (issue 29).
export const notificationChannelsRoutes = (service: NotificationChannelsService) => async (app: FastifyInstance) => {
  const path = '/api/notification-channels';
  mountCrud(app, {
    path,
    rule: 'cnv',
    entity: NotificationChannelSchema,
    input: NotificationChannelInputSchema,
    updateInput: NotificationChannelUpdateSchema,
    service,
  });
  mountReveal(app, { path, rule: 'cnv', reveal: service.reveal });
  app.post(
    `${path}/:id/test`,
    {
      config: { access: 'cnv' },
      schema: {
        tags: ['notification-channels'],
        summary: 'Sends a sample message and answers with what the provider said',
        params: IdParamsSchema,
        response: { 200: dataOf(ChannelTestResultSchema) },
      },
    },
    async (req) => ({ data: await service.test((req.params as { id: string }).id, req.actor) }),
  );
};
