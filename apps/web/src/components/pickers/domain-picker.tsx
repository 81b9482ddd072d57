import type { Domain } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<Domain>('domains');

const columns: Column<Domain>[] = [
  { header: '№', render: (domain) => domain.domainNo, width: '6rem' },
  { header: 'Domain Name', render: (domain) => domain.domainNameUnicode },
  { header: 'Status', render: (domain) => domain.status, width: '7rem' },
];

/** Shown in Unicode. */
export const domainLabel = (domain: Pick<Domain, 'domainNameUnicode'>) => domain.domainNameUnicode;

/** "Select a domain" (the copy and replacement actions pick their target with it). */
export function DomainPicker(props: PickerProps<Domain>) {
  return <Picker title="Select a domain" useList={useList} columns={columns} {...props} />;
}
