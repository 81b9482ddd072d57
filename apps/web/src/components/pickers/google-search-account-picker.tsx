import type { GoogleSearchAccount } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<GoogleSearchAccount>('google-search/accounts');

const columns: Column<GoogleSearchAccount>[] = [
  { header: '№', render: (a) => a.googleSearchAccountNo, width: '6rem' },
  { header: 'Name', render: (a) => a.name },
  { header: 'Service account', render: (a) => <span className="text-break">{a.clientEmail}</span> },
];

export const googleSearchAccountLabel = (a: Pick<GoogleSearchAccount, 'name'>) => a.name;

/** "Select a Google account": a launch profile's account for the domain's Search Console property. */
export function GoogleSearchAccountPicker(props: PickerProps<GoogleSearchAccount>) {
  return <Picker title="Select a Google account" useList={useList} columns={columns} {...props} />;
}
