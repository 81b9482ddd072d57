import type { DomainListItem } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<DomainListItem>('domains');
/**
 * The domains as the console lists them: each domain's list view (view=list, DomainListItem), cheaper to read than
 * whole domains (issue 32, decision 056). The Domains list and this picker both read it; its query keys sit under
 * the same lists key, so a write ends them as it ends the others.
 */
export const useDomainListView: typeof useList = (params, options) => useList({ ...params, view: 'list' }, options);

const columns: Column<DomainListItem>[] = [
  { header: '№', render: (domain) => domain.domainNo, width: '6rem' },
  { header: 'Domain Name', render: (domain) => domain.domainNameUnicode },
  { header: 'Status', render: (domain) => domain.status, width: '7rem' },
];

/** Shown in Unicode. */
export const domainLabel = (domain: Pick<DomainListItem, 'domainNameUnicode'>) => domain.domainNameUnicode;

/** "Select a domain" (the copy and replacement actions pick their target with it). */
export function DomainPicker(props: PickerProps<DomainListItem>) {
  return <Picker title="Select a domain" useList={useDomainListView} columns={columns} {...props} />;
}
