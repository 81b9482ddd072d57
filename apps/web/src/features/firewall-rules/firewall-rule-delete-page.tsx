import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { firewallRulePaths, firewallRulesApi } from './firewall-rules-api.ts';

export function FirewallRuleDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Firewall Rule"
      id={id}
      useRemove={firewallRulesApi.useRemove}
      doneTo={firewallRulePaths.list}
      cancelTo={firewallRulePaths.edit(id)}
    />
  );
}
