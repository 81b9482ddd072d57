import type { FirewallRule, FirewallRuleInput, ListQuery } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { FirewallRuleWrite, FirewallRulesRepository } from './firewall-rules.repository.ts';

export const FIREWALL_RULE_DUPLICATE = 'A firewall rule with this name already exists';

/**
 * Firewall rule templates. The expression is checked by the contract's schema (balanced parentheses and
 * quotes, known fields), so a bad one is a 400 with a field error before it reaches here.
 */
export function createFirewallRulesService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  repo: FirewallRulesRepository;
}) {
  const crud = createCrudService<FirewallRule, FirewallRuleInput, ListQuery, FirewallRuleWrite>({
    ...deps,
    entity: 'firewall-rules',
    label: 'firewall rule',
    unique: { firewall_rules_name_lower_uq: { field: 'name', message: FIREWALL_RULE_DUPLICATE } },
    snapshot: async (id, ex) => {
      const r = await deps.repo.findById(id, ex);
      return r && { name: r.name, action: r.action, expression: r.expression, defaultPriority: r.defaultPriority };
    },
  });
  return { ...crud, findByIds: deps.repo.findByIds };
}
export type FirewallRulesService = ReturnType<typeof createFirewallRulesService>;
