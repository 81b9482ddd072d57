import Form from 'react-bootstrap/Form';
import { useController, useFormContext, type FieldValues, type Path, type PathValue } from 'react-hook-form';
import { useFieldError } from '../../components/form-fields.tsx';

/** A group of checkboxes whose value is the list of checked values (one box still gives a list). */
export function CheckListField<T extends FieldValues>({
  name,
  label,
  options,
  help,
}: {
  name: Path<T>;
  label: string;
  options: readonly { value: string; label: string }[];
  help?: string;
}) {
  const { control } = useFormContext<T>();
  const { field } = useController({ name, control });
  const error = useFieldError<T>(name);
  const value = (field.value as string[] | undefined) ?? [];
  const toggle = (v: string, on: boolean) =>
    field.onChange((on ? [...value, v] : value.filter((x) => x !== v)) as PathValue<T, Path<T>>);
  return (
    <fieldset className="mb-3">
      <legend className="form-label fs-6 mb-1">{label}</legend>
      {options.map((o) => (
        <Form.Check
          key={o.value}
          id={`field-${name}-${o.value}`}
          type="checkbox"
          label={o.label}
          checked={value.includes(o.value)}
          onChange={(e) => toggle(o.value, e.currentTarget.checked)}
          isInvalid={Boolean(error)}
        />
      ))}
      {error && <div className="invalid-feedback d-block">{error}</div>}
      {help && !error && <Form.Text muted>{help}</Form.Text>}
    </fieldset>
  );
}
