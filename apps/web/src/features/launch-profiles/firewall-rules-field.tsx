import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ListGroup from 'react-bootstrap/ListGroup';
import { useController, useFormContext } from 'react-hook-form';
import { LAUNCH_PROFILE_FIREWALL_RULES_MAX, firewallActionLabel } from '@fleetdesk/contract';
import { useFieldError } from '../../components/form-fields.tsx';
import { FirewallRulePicker } from '../../components/pickers/firewall-rule-picker.tsx';
import { refApis, type LaunchProfileFormValues } from './launch-profiles-api.ts';

function RuleRow({ id, index, onRemove }: { id: string; index: number; onRemove: () => void }) {
  const rule = refApis.firewallRules.useItem(id);
  const label = rule.data?.name ?? (rule.isPending ? 'Loading…' : 'A rule that no longer exists');
  return (
    <ListGroup.Item className="d-flex align-items-center gap-2">
      <span className="text-body-secondary small">{index + 1}.</span>
      <span className="flex-grow-1 text-break">
        {label}
        {rule.data && <span className="text-body-secondary small ms-2">{firewallActionLabel(rule.data.action)}</span>}
      </span>
      <Button variant="outline-danger" size="sm" onClick={onRemove} aria-label={`Remove firewall rule ${label}`}>
        Remove
      </Button>
    </ListGroup.Item>
  );
}

/** The firewall rule templates a launch pushes, in order: picked one at a time, removed one at a time. */
export function FirewallRulesField() {
  const { control } = useFormContext<LaunchProfileFormValues>();
  const { field } = useController({ name: 'firewallRuleIds', control });
  const error = useFieldError<LaunchProfileFormValues>('firewallRuleIds');
  const [open, setOpen] = useState(false);
  const ids = (field.value as string[] | undefined) ?? [];
  return (
    <Form.Group className="mb-3" data-testid="field-firewallRuleIds">
      <Form.Label as="div">Firewall Rules</Form.Label>
      {ids.length > 0 ? (
        <ListGroup className="mb-2">
          {ids.map((id, i) => (
            <RuleRow key={id} id={id} index={i} onRemove={() => field.onChange(ids.filter((x) => x !== id))} />
          ))}
        </ListGroup>
      ) : (
        <div className="small text-body-secondary mb-2">None: the launch pushes no WAF rules.</div>
      )}
      {error && <div className="invalid-feedback d-block mb-2">{error}</div>}
      <Button
        variant="outline-secondary"
        size="sm"
        onClick={() => setOpen(true)}
        disabled={ids.length >= LAUNCH_PROFILE_FIREWALL_RULES_MAX}
      >
        Add firewall rule
      </Button>
      <FirewallRulePicker
        show={open}
        onHide={() => setOpen(false)}
        onPick={(rule) => {
          setOpen(false);
          if (!ids.includes(rule._id)) field.onChange([...ids, rule._id]);
        }}
      />
    </Form.Group>
  );
}
