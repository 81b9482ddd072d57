import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  AlertListQuerySchema,
  AlertSchema,
  DeliveryLogEntrySchema,
  DeliveryLogQuerySchema,
  DemoInboxMailSchema,
  dataOf,
  listOf,
} from '@fleetdesk/contract';
import type { AlertsService } from './alerts.service.ts';

// Reading alerts is for whoever works on domains; managing channels and rules needs the admin rule.
export const alertsRoutes = (service: AlertsService) => async (app: FastifyInstance) => {
  const access = 'cnv:domains' as const;
  app.get(
    '/api/alerts',
    {
      config: { access },
      schema: { tags: ['alerts'], querystring: AlertListQuerySchema, response: { 200: listOf(AlertSchema) } },
    },
    async (req) => ({ data: await service.list(req.query as z.infer<typeof AlertListQuerySchema>) }),
  );
  app.get(
    '/api/alerts/deliveries',
    {
      config: { access },
      schema: {
        tags: ['alerts'],
        summary: 'The delivery log: when, channel, event, outcome and the provider’s answer',
        querystring: DeliveryLogQuerySchema,
        response: { 200: listOf(DeliveryLogEntrySchema) },
      },
    },
    async (req) => ({ data: await service.deliveryLog(req.query as z.infer<typeof DeliveryLogQuerySchema>) }),
  );
  app.get(
    '/api/alerts/demo-inbox',
    {
      config: { access },
      schema: {
        tags: ['alerts'],
        summary: 'Demo mode only: the mails the local SMTP catcher received (null outside the demo)',
        response: { 200: dataOf(z.array(DemoInboxMailSchema).nullable()) },
      },
    },
    async () => ({ data: service.demoInbox() }),
  );
};
