import { firewallActionLabel, type FirewallRule } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { firewallRulePaths, firewallRulesApi } from './firewall-rules-api.ts';

const columns: Column<FirewallRule>[] = [
  { header: '№', render: (rule) => rule.firewallRuleNo, width: '6rem' },
  { header: 'Name', render: (rule) => rule.name },
  { header: 'Action', render: (rule) => <span title={rule.action}>{firewallActionLabel(rule.action)}</span> },
  {
    header: 'Expression',
    render: (rule) => (
      <code className="d-inline-block text-truncate align-middle" style={{ maxWidth: '28rem' }} title={rule.expression}>
        {rule.expression}
      </code>
    ),
  },
  { header: 'Default Priority', render: (rule) => rule.defaultPriority, width: '9rem' },
];

export function FirewallRuleListPage() {
  return (
    <ListView
      title="Firewall Rules"
      useList={firewallRulesApi.useList}
      loadFailedText={firewallRulesApi.fallbacks.load}
      columns={columns}
      createLink={{ to: firewallRulePaths.create, label: 'Create Firewall Rule' }}
      rowHref={(rule) => firewallRulePaths.edit(rule._id)}
    />
  );
}
