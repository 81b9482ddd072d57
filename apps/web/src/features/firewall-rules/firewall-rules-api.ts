import { z } from 'zod';
import {
  FirewallRuleInputSchema,
  toPriority,
  type FirewallAction,
  type FirewallRule,
  type FirewallRuleInput,
} from '@fleetdesk/contract';
import { SECOND_DOCUMENT, createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const firewallRulesApi = createResourceHooks<FirewallRule, FirewallRuleInput>('firewall-rules', SECOND_DOCUMENT);

export const firewallRulePaths = resourcePaths('firewall-rules');

export type FirewallRuleFormValues = {
  name: string;
  action: FirewallAction;
  expression: string;
  defaultPriority: string;
};

/** The contract's schema, with the form's rule for the priority: a number, 0 when the input is not one. */
export const FirewallRuleFormSchema = FirewallRuleInputSchema.extend({
  defaultPriority: z.preprocess(toPriority, FirewallRuleInputSchema.shape.defaultPriority),
});
