import type { DomainRegistratorContact } from '@fleetdesk/contract';
import { formatText } from '../../lib/format.ts';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<DomainRegistratorContact>('domain-registrators-contacts');

const columns: Column<DomainRegistratorContact>[] = [
  { header: '№', render: (c) => c.domainRegistratorContactNo, width: '6rem' },
  { header: 'Name', render: (c) => c.name },
  { header: 'Email', render: (c) => formatText(c.email) },
  { header: 'Country', render: (c) => formatText(c.country), width: '6rem' },
];

export const domainRegistratorContactLabel = (c: Pick<DomainRegistratorContact, 'name'>) => c.name;

/** "Select a domain registrator contact": used when registering a domain. */
export function DomainRegistratorContactPicker(props: PickerProps<DomainRegistratorContact>) {
  return <Picker title="Select a domain registrator contact" useList={useList} columns={columns} {...props} />;
}
