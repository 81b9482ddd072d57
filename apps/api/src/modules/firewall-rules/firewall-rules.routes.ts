import type { FastifyInstance } from 'fastify';
import {
  FirewallRuleInputSchema,
  FirewallRuleListQuerySchema,
  FirewallRuleSchema,
  FirewallRuleUpdateInputSchema,
} from '@fleetdesk/contract';
import { mountCrud } from '../../http/crud.ts';
import type { FirewallRulesService } from './firewall-rules.service.ts';

export const firewallRulesRoutes = (service: FirewallRulesService) => async (app: FastifyInstance) => {
  mountCrud(app, {
    path: '/api/firewall-rules',
    rule: 'cnv:firewallRules',
    entity: FirewallRuleSchema,
    input: FirewallRuleInputSchema,
    updateInput: FirewallRuleUpdateInputSchema,
    listQuery: FirewallRuleListQuerySchema,
    service,
  });
};
