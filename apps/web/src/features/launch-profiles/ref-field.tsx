import { useState, type ComponentType } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { useController, useFormContext, type Path } from 'react-hook-form';
import { useFieldError } from '../../components/form-fields.tsx';
import { PickerField } from '../../components/picker-field.tsx';
import type { PickerProps } from '../../components/picker.tsx';
import type { Entity } from '../../lib/resource.ts';
import type { LaunchProfileFormValues } from './launch-profiles-api.ts';

export interface ProfileRefFieldProps<T extends Entity> {
  name: Path<LaunchProfileFormValues>;
  label: string;
  useItem: (id: string | undefined) => UseQueryResult<T, Error>;
  getLabel: (item: T) => string;
  picker: ComponentType<PickerProps<T>>;
  required?: boolean;
  placeholder?: string;
}

/**
 * A picker bound to the profile form: the form holds the id; the label comes from the item picked, or, for an id
 * the profile was loaded with, from the item read by its id.
 */
export function ProfileRefField<T extends Entity>({ name, useItem, ...props }: ProfileRefFieldProps<T>) {
  const { control } = useFormContext<LaunchProfileFormValues>();
  const { field } = useController({ name, control });
  const error = useFieldError<LaunchProfileFormValues>(name);
  const [picked, setPicked] = useState<T | null>(null);
  const id = typeof field.value === 'string' && field.value ? field.value : undefined;
  const loaded = useItem(picked?._id === id ? undefined : id);
  const value = picked && picked._id === id ? picked : loaded.data && loaded.data._id === id ? loaded.data : null;
  const handleChange = (item: T | null) => {
    setPicked(item);
    field.onChange(item ? item._id : null);
  };
  return (
    <div data-testid={`field-${name}`}>
      <PickerField
        {...props}
        value={value}
        placeholder={id && loaded.isPending ? 'Loading…' : id && !value ? 'Not found' : props.placeholder}
        onChange={handleChange}
        error={error}
      />
    </div>
  );
}
