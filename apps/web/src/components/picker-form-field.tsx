import { useState } from 'react';
import { useController, useFormContext, type FieldValues, type Path } from 'react-hook-form';
import type { Entity } from '../lib/resource.ts';
import { useFieldError } from './form-fields.tsx';
import { PickerField, type PickerFieldProps } from './picker-field.tsx';

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
