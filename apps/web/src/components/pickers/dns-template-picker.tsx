import type { DnsTemplate } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<DnsTemplate>('dns-templates');

const columns: Column<DnsTemplate>[] = [
  { header: '№', render: (t) => t.dnsTemplateNo, width: '5rem' },
  { header: 'Name', render: (t) => t.name },
  { header: 'Records', render: (t) => t.records.length, width: '6rem' },
];

export const dnsTemplateLabel = (t: Pick<DnsTemplate, 'name'>) => t.name;

/** "Select a DNS template": launch profiles and the fleet's "Apply a DNS template". */
export function DnsTemplatePicker(props: PickerProps<DnsTemplate>) {
  return <Picker title="Select a DNS template" useList={useList} columns={columns} {...props} />;
}
