import { useId, useState, type ComponentType } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import { useController, useFormContext, type FieldValues, type Path } from 'react-hook-form';
import type { QueryParams } from '../lib/api-client.ts';
import type { Entity } from '../lib/resource.ts';
import { useFieldError } from './form-fields.tsx';
import type { PickerProps } from './picker.tsx';

export interface PickerFieldProps<T extends Entity> {
  label: string;
  value: T | null;
  onChange: (item: T | null) => void;
  getLabel: (item: T) => string;
  /** e.g. RegionPicker */
  picker: ComponentType<PickerProps<T>>;
  pickerParams?: QueryParams;
  placeholder?: string;
  error?: string;
  disabled?: boolean;
  required?: boolean;
}

/** Shows the picked item's label with Select and Clear buttons. */
export function PickerField<T extends Entity>({
  label,
  value,
  onChange,
  getLabel,
  picker: PickerComponent,
  pickerParams,
  placeholder = 'None',
  error,
  disabled,
  required,
}: PickerFieldProps<T>) {
  const [open, setOpen] = useState(false);
  const inputId = useId();
  const handlePick = (item: T) => {
    onChange(item);
    setOpen(false);
  };
  return (
    <Form.Group className="mb-3">
      <Form.Label htmlFor={inputId}>
        {label}
        {required && (
          <span className="text-danger ms-1" aria-hidden="true">
            *
          </span>
        )}
      </Form.Label>
      <InputGroup hasValidation>
        <Form.Control
          id={inputId}
          readOnly
          value={value ? getLabel(value) : ''}
          placeholder={placeholder}
          isInvalid={Boolean(error)}
        />
        <Button variant="outline-secondary" onClick={() => setOpen(true)} disabled={disabled}>
          Select
        </Button>
        <Button variant="outline-secondary" onClick={() => onChange(null)} disabled={disabled || !value}>
          Clear
        </Button>
        {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
      </InputGroup>
      <PickerComponent show={open} onHide={() => setOpen(false)} onPick={handlePick} extraParams={pickerParams} />
    </Form.Group>
  );
}

export interface PickerFormFieldProps<T extends Entity, TValues extends FieldValues> extends Omit<
  PickerFieldProps<T>,
  'value' | 'onChange' | 'error'
> {
  /** The form field that holds the picked id (e.g. regionId). */
  name: Path<TValues>;
  /** The item the form starts with (e.g. the loaded proxy's region), for its label. */
  initial?: T | null;
}

/** A PickerField bound to a form: the form holds the id, the field shows the label. */
export function PickerFormField<T extends Entity, TValues extends FieldValues>({
  name,
  initial = null,
  ...props
}: PickerFormFieldProps<T, TValues>) {
  const { control } = useFormContext<TValues>();
  const { field } = useController({ name, control });
  const error = useFieldError<TValues>(name);
  const [picked, setPicked] = useState<T | null>(initial);
  const value = picked && field.value === picked._id ? picked : null;
  const handleChange = (item: T | null) => {
    setPicked(item);
    field.onChange(item ? item._id : null);
  };
  return <PickerField {...props} value={value} onChange={handleChange} error={error} />;
}
