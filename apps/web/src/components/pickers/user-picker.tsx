import type { User } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<User>('users');

const columns: Column<User>[] = [
  { header: '№', render: (u) => u.userNo, width: '6rem' },
  { header: 'Username', render: (u) => u.username },
  { header: 'Name', render: (u) => u.name },
];

export const userLabel = (u: Pick<User, 'username'>) => u.username;

/** "Select a user": used by the audit log's filter. */
export function UserPicker(props: PickerProps<User>) {
  return <Picker title="Select a user" useList={useList} columns={columns} {...props} />;
}
