import { z } from 'zod';
import { IdSchema, ListQuerySchema, booleanish, requiredText } from './common.ts';
import { RULES, type Rule } from './rules.ts';

const KNOWN = new Set<string>(RULES);

export const RoleSchema = z.object({
  _id: IdSchema,
  roleNo: z.number().int(),
  name: z.string(),
  rules: z.array(z.string()),
  /** Its users must sign in with a second factor (asked to set it up at their next sign-in). */
  requireTwoFactor: z.boolean(),
  /** Its users may create API tokens without an expiry. */
  tokensWithoutExpiry: z.boolean(),
});
export type Role = z.infer<typeof RoleSchema>;

/** A list of rule strings from RULES; an unknown rule is refused, a repeated one kept once. */
export const RoleRulesSchema = z
  .array(z.string({ message: 'Each rule must be a string' }).trim().max(100), { message: 'Rules must be a list' })
  .max(RULES.length * 2, { message: 'Too many rules' })
  .superRefine((rules, ctx) => {
    const unknown = rules.filter((r) => !KNOWN.has(r));
    if (unknown.length) {
      ctx.addIssue({
        code: 'custom',
        message: `Unknown rule${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
      });
    }
  })
  .transform((rules) => RULES.filter((r) => rules.includes(r)) as Rule[]);

export const RoleInputSchema = z.object({
  name: requiredText(200, 'Name'),
  rules: RoleRulesSchema.default([]),
  requireTwoFactor: booleanish().default(false),
  tokensWithoutExpiry: booleanish().default(false),
});
export type RoleInput = z.infer<typeof RoleInputSchema>;

export const RoleUpdateInputSchema = z.object({
  name: requiredText(200, 'Name').optional(),
  rules: RoleRulesSchema.optional(),
  requireTwoFactor: booleanish().optional(),
  tokensWithoutExpiry: booleanish().optional(),
});
export type RoleUpdateInput = z.infer<typeof RoleUpdateInputSchema>;

export const RoleListQuerySchema = ListQuerySchema;
