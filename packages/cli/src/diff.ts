import { plural, type FleetItem, type FleetPlan, type FleetStateChange } from '@fleetdesk/contract';

const SIGN: Record<FleetStateChange['op'], string> = { add: '+', change: '~', remove: '-' };

/** One difference as a diff line: `+ A www.example.com  192.0.2.1`, `~ SSL mode  Full → Full strict`. */
export function changeLine(c: FleetStateChange): string {
  const value =
    c.op === 'add' ? c.after : c.op === 'remove' ? c.before : `${c.before ?? 'none'} → ${c.after ?? 'none'}`;
  return `${SIGN[c.op]} ${c.subject}  ${value ?? ''}`.trimEnd();
}

/** The console's page of a plan. */
export const planLink = (origin: string, planId: string) => `${origin}/fleet/${planId}`;

/**
 * A state plan as a diff, as `terraform plan` prints one: each domain to change with its differences, each refused
 * name with why, then the counts and the plan's page in the console.
 */
export function planText(origin: string, plan: FleetPlan, changes: FleetItem[], refused: FleetItem[]): string {
  const out: string[] = [];
  for (const it of changes) {
    out.push(`~ ${it.domainName}`);
    for (const c of it.changes ?? []) out.push(`    ${changeLine(c)}`);
    if (!it.changes) out.push(`    ${it.before ?? ''} → ${it.after ?? ''}`);
  }
  for (const it of refused) out.push(`! ${it.domainName}: ${it.reason ?? 'refused'}`);
  if (out.length) out.push('');
  const c = plan.counts;
  const parts = [`${plural(c.change, 'domain')} to change`, `${c.same} as in the file`];
  if (c.refused) parts.push(`${c.refused} refused`);
  out.push(`Plan #${plan.planNo}: ${parts.join(', ')}.`);
  out.push(`In the console: ${planLink(origin, plan._id)}`);
  return `${out.join('\n')}\n`;
}

/** The exit code of `plan`, as `terraform plan -detailed-exitcode`: 0 nothing to change, 2 changes, 1 an error. */
export const planExitCode = (plan: FleetPlan) => (plan.counts.refused > 0 ? 1 : plan.counts.change > 0 ? 2 : 0);
