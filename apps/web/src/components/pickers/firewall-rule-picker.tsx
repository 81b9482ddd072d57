import type { FirewallRule } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<FirewallRule>('firewall-rules');

const columns: Column<FirewallRule>[] = [
  { header: '№', render: (rule) => rule.firewallRuleNo, width: '6rem' },
  { header: 'Name', render: (rule) => rule.name },
  { header: 'Action', render: (rule) => rule.action },
  { header: 'Priority', render: (rule) => rule.defaultPriority, width: '6rem' },
];

export const firewallRuleLabel = (rule: Pick<FirewallRule, 'name'>) => rule.name;

/** "Select a firewall rule": used by the domain's Setup WAF screen. */
export function FirewallRulePicker(props: PickerProps<FirewallRule>) {
  return <Picker title="Select a firewall rule" useList={useList} columns={columns} {...props} />;
}
