import type { ComponentType, ReactNode } from 'react';
import { useController, useFormContext } from 'react-hook-form';
import type { QueryParams } from '../../lib/api-client.ts';
import type { Entity } from '../../lib/resource.ts';
import { useFieldError } from '../../components/form-fields.tsx';
import { PickerField } from '../../components/picker-field.tsx';
import type { PickerProps } from '../../components/picker.tsx';
import type { DomainFormValues } from './domains-api.ts';

type RefName =
  'serverId' | 'brandId' | 'cloudId' | 'parserProxyRegionId' | 'domainRegistratorId' | 'yandexWebmasterAccountId';

export interface RefFieldProps<T extends Entity> {
  name: RefName;
  label: string;
  /** The picked item (or the loaded one), held by the page so other fields can use it. */
  value: T | null;
  onValueChange: (item: T | null) => void;
  getLabel: (item: T) => string;
  picker: ComponentType<PickerProps<T>>;
  pickerParams?: QueryParams;
  /** Shown under the field, e.g. that the picked cloud is in use. Picking stays allowed. */
  warning?: ReactNode;
}

/** A picker bound to the domain form: the form holds the id, the page holds the item for its label. */
export function RefField<T extends Entity>({ name, value, onValueChange, warning, ...props }: RefFieldProps<T>) {
  const { control } = useFormContext<DomainFormValues>();
  const { field } = useController({ name, control });
  const error = useFieldError<DomainFormValues>(name);
  const shown = value && field.value === value._id ? value : null;
  const handleChange = (item: T | null) => {
    onValueChange(item);
    field.onChange(item ? item._id : null);
  };
  return (
    <div data-testid={`field-${name}`}>
      <PickerField {...props} value={shown} onChange={handleChange} error={error} />
      {warning && shown && !error && (
        <div className="small text-warning-emphasis mt-n2 mb-3 d-flex gap-1" role="status">
          <span aria-hidden="true">⚠</span>
          <span>{warning}</span>
        </div>
      )}
    </div>
  );
}
