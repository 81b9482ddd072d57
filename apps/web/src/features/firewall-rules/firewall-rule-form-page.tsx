import { useParams } from 'react-router';
import {
  EXPRESSION_MAX,
  FIREWALL_ACTIONS,
  FIREWALL_ACTION_LABELS,
  type FirewallRule,
  type FirewallRuleInput,
} from '@fleetdesk/contract';
import { SelectField, StaticField, TextAreaField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import {
  FirewallRuleFormSchema,
  firewallRulePaths,
  firewallRulesApi,
  type FirewallRuleFormValues,
} from './firewall-rules-api.ts';

const ACTION_OPTIONS = FIREWALL_ACTIONS.map((action) => ({ value: action, label: FIREWALL_ACTION_LABELS[action] }));

export function FirewallRuleFormPage() {
  const { id } = useParams();
  return (
    <FormView<FirewallRule, FirewallRuleFormValues, FirewallRuleInput>
      entity="Firewall Rule"
      resource={firewallRulesApi}
      schema={FirewallRuleFormSchema as never}
      id={id}
      defaultValues={{ name: '', action: 'managed_challenge', expression: '', defaultPriority: '0' }}
      toValues={(rule) => ({
        name: rule.name,
        action: rule.action,
        expression: rule.expression,
        defaultPriority: String(rule.defaultPriority),
      })}
      paths={firewallRulePaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.firewallRuleNo} />}
          <TextField<FirewallRuleFormValues> name="name" label="Name" required maxLength={200} autoFocus />
          <SelectField<FirewallRuleFormValues> name="action" label="Action" required options={ACTION_OPTIONS} />
          <TextAreaField<FirewallRuleFormValues>
            name="expression"
            label="Expression"
            rows={5}
            maxLength={EXPRESSION_MAX}
            inputClassName="font-monospace"
            spellCheck={false}
            placeholder='(http.request.uri.path contains "/wp-login.php") or (cf.threat_score gt 14)'
            help="A Cloudflare rules-language expression. Parentheses and quotes must balance, and field names must be known ones such as http.request.uri.path, ip.src or cf.client.bot."
          />
          <TextField<FirewallRuleFormValues>
            name="defaultPriority"
            label="Default Priority"
            type="number"
            valueAs="string"
            required
            min={0}
            step={1}
            help="A whole number; anything else counts as 0."
          />
        </>
      )}
    </FormView>
  );
}
