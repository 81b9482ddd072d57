import { z } from 'zod';
import { IdSchema, ListQuerySchema, requiredText } from './common.ts';
import { RULES, type Rule } from './rules.ts';

const KNOWN = new Set<string>(RULES);

export const RoleSchema = z.object({
  _id: IdSchema,
  roleNo: z.number().int(),
  name: z.string(),
  rules: z.array(z.string()),
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
});
export type RoleInput = z.infer<typeof RoleInputSchema>;

export const RoleUpdateInputSchema = z.object({
  name: requiredText(200, 'Name').optional(),
  rules: RoleRulesSchema.optional(),
});
export type RoleUpdateInput = z.infer<typeof RoleUpdateInputSchema>;

export const RoleListQuerySchema = ListQuerySchema;
