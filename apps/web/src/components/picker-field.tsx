import { useId, useState, type ComponentType } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import type { QueryParams } from '../lib/api-client.ts';
import type { Entity } from '../lib/resource.ts';
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

/**
 * Shows the picked item's label with Select and Clear buttons. Free of the form library (lists' filters use
 * it); PickerFormField in picker-form-field.tsx binds it to a form.
 */
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
