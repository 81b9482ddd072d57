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
  /**
   * The picker's In Use marks: the items another domain of this brand uses (brandId), or the brands whose other
   * domains use this cloud (cloudId); `domainId` is the domain itself, left out of the count.
   */
  inUse?: { brandId?: string | null; cloudId?: string | null; domainId?: string };
  /** Shown under the field, e.g. that the picked cloud is in use. Picking stays allowed. */
  warning?: ReactNode;
}

function inUseParams(u: RefFieldProps<Entity>['inUse']): QueryParams | undefined {
  if (u?.brandId) return { checkInUseBrandId: u.brandId, checkInUseBrandIdDomainId: u.domainId };
  if (u?.cloudId) return { checkInUseCloudId: u.cloudId, checkInUseCloudIdDomainId: u.domainId };
  return undefined;
}

/** What names a picker of the form: its field, label, item label and picker (spread into RefField). */
export const refPicker = <T extends Entity>(
  name: RefName,
  label: string,
  getLabel: (item: T) => string,
  picker: ComponentType<PickerProps<T>>,
) => ({ name, label, getLabel, picker });

/** A picker bound to the domain form: the form holds the id, the page holds the item for its label. */
export function RefField<T extends Entity>({
  name,
  value,
  onValueChange,
  warning,
  inUse,
  pickerParams,
  ...props
}: RefFieldProps<T>) {
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
      <PickerField
        {...props}
        pickerParams={pickerParams ?? inUseParams(inUse)}
        value={shown}
        onChange={handleChange}
        error={error}
      />
      {warning && shown && !error && (
        <div className="small text-warning-emphasis mt-n2 mb-3 d-flex gap-1" role="status">
          <span aria-hidden="true">⚠</span>
          <span>{warning}</span>
        </div>
      )}
    </div>
  );
}
