import Form from 'react-bootstrap/Form';
import { useController, useFormContext } from 'react-hook-form';
import { RULES, RULE_LABELS } from '@fleetdesk/contract';
import { useFieldError } from '../../components/form-fields.tsx';
import type { RoleFormValues } from './roles-api.ts';

/** The twelve rules as labelled switches; the form holds the list of rule strings. */
export function RulesField() {
  const { control } = useFormContext<RoleFormValues>();
  const { field } = useController({ name: 'rules', control });
  const error = useFieldError<RoleFormValues>('rules');
  const held: string[] = field.value ?? [];
  const toggle = (rule: string, on: boolean) =>
    field.onChange(on ? RULES.filter((r) => r === rule || held.includes(r)) : held.filter((r) => r !== rule));
  return (
    <fieldset className="mb-3">
      <legend className="form-label fs-6">Rules</legend>
      <div className="row row-cols-1 row-cols-sm-2 row-cols-lg-3">
        {RULES.map((rule) => (
          <div className="col" key={rule}>
            <Form.Check
              type="switch"
              id={`rule-${rule}`}
              label={RULE_LABELS[rule]}
              title={rule}
              checked={held.includes(rule)}
              onChange={(event) => toggle(rule, event.target.checked)}
              isInvalid={Boolean(error)}
            />
          </div>
        ))}
      </div>
      {error && <div className="invalid-feedback d-block">{error}</div>}
      <Form.Text muted>All (cnv) grants every area.</Form.Text>
    </fieldset>
  );
}
