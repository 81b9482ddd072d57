import type { FastifyInstance } from 'fastify';
import { AlertRuleInputSchema, AlertRuleSchema, AlertRuleUpdateSchema } from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { AlertRulesService } from './alert-rules.service.ts';

// Rules send to channels that hold credentials: the admin rule, like the channels.
export const alertRulesRoutes = (service: AlertRulesService) => async (app: FastifyInstance) => {
  mountCrud(app, {
    path: '/api/alert-rules',
    rule: 'cnv',
    entity: AlertRuleSchema,
    input: AlertRuleInputSchema,
    updateInput: AlertRuleUpdateSchema,
    service,
  });
};
