import { z } from 'zod';
import { AlertRuleInputSchema, type AlertRule, type AlertRuleInput } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const rulesApi = createResourceHooks<AlertRule, AlertRuleInput>('alert-rules');
export const rulePaths = resourcePaths('alert-rules');

export type RuleFormValues = {
  name: string;
  enabled: boolean;
  events: string[];
  expiryDays: number | null;
  healthMinutes: number | null;
  scope: string;
  brandId: string | null;
  filter: string;
  channelIds: string[];
  minSeverity: string;
  reminderMinutes: number | null;
  quietStart: string;
  quietEnd: string;
  timeZone: string;
};

/** A domains list address (or just its query) → the list's filter parameters; page and columns are not a filter. */
export function filterFromText(text: string): Record<string, string> | null {
  const t = text.trim();
  if (!t) return null;
  const query = t.includes('?') ? t.slice(t.indexOf('?') + 1) : t;
  const params = new URLSearchParams(query.split('#')[0]);
  const out: Record<string, string> = {};
  for (const [k, v] of params) if (v && !['page', 'columns', 'tab'].includes(k)) out[k] = v;
  return Object.keys(out).length ? out : null;
}
export const filterToText = (f: Record<string, unknown> | null) =>
  f ? new URLSearchParams(Object.entries(f).map(([k, v]) => [k, String(v)])).toString() : '';

/** The contract's rules; the saved filter is typed as the list's query and sent as its parameters. */
export const RuleFormSchema = AlertRuleInputSchema.extend({
  filter: z
    .string()
    .transform((v): unknown => filterFromText(v))
    .pipe(AlertRuleInputSchema.shape.filter),
});
