import type { DomainRegistrator } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<DomainRegistrator>('domain-registrators');

const columns: Column<DomainRegistrator>[] = [
  { header: '№', render: (r) => r.domainRegistratorNo, width: '6rem' },
  { header: 'Name', render: (r) => r.name },
  { header: 'Type', render: (r) => r.type },
];

export const domainRegistratorLabel = (r: Pick<DomainRegistrator, 'name'>) => r.name;

/** "Select a domain registrator". */
export function DomainRegistratorPicker(props: PickerProps<DomainRegistrator>) {
  return <Picker title="Select a domain registrator" useList={useList} columns={columns} {...props} />;
}
