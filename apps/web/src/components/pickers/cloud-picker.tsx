import type { Cloud } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<Cloud>('clouds');

const columns: Column<Cloud>[] = [
  { header: '№', render: (cloud) => cloud.cloudNo, width: '6rem' },
  { header: 'Email', render: (cloud) => cloud.email },
];

export const cloudLabel = (cloud: Pick<Cloud, 'email'>) => cloud.email;

const isCloudInUse = (cloud: Cloud) => cloud.isInUseBrandId;

/**
 * "Select a cloud". With `checkInUseBrandId` (and `checkInUseBrandIdDomainId`, the domain being edited) in
 * `extraParams`, an In Use column marks clouds that another domain of that brand already uses.
 */
export function CloudPicker(props: PickerProps<Cloud>) {
  const checks = Boolean(props.extraParams?.checkInUseBrandId);
  return (
    <Picker
      title="Select a cloud"
      useList={useList}
      columns={columns}
      isInUse={checks ? isCloudInUse : undefined}
      {...props}
    />
  );
}
