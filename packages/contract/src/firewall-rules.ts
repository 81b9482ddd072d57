import { z } from 'zod';
import { IdSchema, ListQuerySchema, requiredText } from './common.ts';
import { checkFirewallExpression } from './firewall-expression.ts';

export const FIREWALL_ACTIONS = ['managed_challenge', 'block', 'js_challenge', 'skip', 'challenge'] as const;
/** Cloudflare's names of the actions, as operators read them (the value stays on hover). */
export const FIREWALL_ACTION_LABELS: Record<(typeof FIREWALL_ACTIONS)[number], string> = {
  managed_challenge: 'Managed Challenge',
  block: 'Block',
  js_challenge: 'JS Challenge',
  skip: 'Skip',
  challenge: 'Interactive Challenge',
};
/** The label of an action; an unknown one as it is. */
export const firewallActionLabel = (action: string) =>
  (FIREWALL_ACTION_LABELS as Record<string, string>)[action] ?? action;
export type FirewallAction = (typeof FIREWALL_ACTIONS)[number];

export const EXPRESSION_MAX = 4096;
export const PRIORITY_MAX = 2_147_483_647;
export const PRIORITY_MESSAGE = 'Default priority must be a whole number';

export const FirewallRuleSchema = z.object({
  _id: IdSchema,
  firewallRuleNo: z.number().int(),
  name: z.string(),
  action: z.enum(FIREWALL_ACTIONS),
  expression: z.string(),
  defaultPriority: z.number().int(),
});
export type FirewallRule = z.infer<typeof FirewallRuleSchema>;

const action = () =>
  z.enum(FIREWALL_ACTIONS, {
    error: (iss) =>
      iss.input === undefined ? 'Action is required' : `Action must be one of ${FIREWALL_ACTIONS.join(', ')}`,
  });

/** Checked before saving: balanced parentheses and quotes, known field names. */
export const firewallExpression = () =>
  z
    .string({ message: 'Expression must be text' })
    .trim()
    .max(EXPRESSION_MAX, { message: `Expression must be at most ${EXPRESSION_MAX} characters` })
    .superRefine((v, ctx) => {
      const r = checkFirewallExpression(v);
      if (!r.ok) ctx.addIssue({ code: 'custom', message: r.message });
    });

const priority = () =>
  z
    .number({
      error: (iss) => (iss.input === undefined ? 'Default priority is required' : PRIORITY_MESSAGE),
    })
    .int({ message: PRIORITY_MESSAGE })
    .min(0, { message: 'Default priority must be 0 or more' })
    .max(PRIORITY_MAX, { message: `Default priority must be at most ${PRIORITY_MAX}` });

export const FirewallRuleInputSchema = z.object({
  name: requiredText(200, 'Name'),
  action: action(),
  expression: firewallExpression().default(''),
  defaultPriority: priority(),
});
export type FirewallRuleInput = z.infer<typeof FirewallRuleInputSchema>;

export const FirewallRuleUpdateInputSchema = z.object({
  name: requiredText(200, 'Name').optional(),
  action: action().optional(),
  expression: firewallExpression().optional(),
  defaultPriority: priority().optional(),
});
export type FirewallRuleUpdateInput = z.infer<typeof FirewallRuleUpdateInputSchema>;

/** The form's rule for default priority: a number, 0 when the input is not one. */
export const toPriority = (v: unknown): number => {
  const n = typeof v === 'number' ? v : Number(String(v ?? '').trim());
  return Number.isFinite(n) && String(v ?? '').trim() !== '' ? Math.trunc(n) : 0;
};

export const FirewallRuleListQuerySchema = ListQuerySchema;
