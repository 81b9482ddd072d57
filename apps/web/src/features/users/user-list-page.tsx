import type { User } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { userPaths, usersApi } from './users-api.ts';
import { DateTime } from '../../components/date-time.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';

const columns: Column<User>[] = [
  { header: '№', render: (user) => user.userNo, width: '6rem' },
  { header: 'Username', render: (user) => user.username },
  { header: 'Name', render: (user) => user.name },
  { header: 'Email', render: (user) => user.email },
  { header: 'Status', render: (user) => <StatusBadge status={user.status} /> },
  { header: 'Created', render: (user) => <DateTime value={user.dateCreated} /> },
  { header: 'Last Login', render: (user) => <DateTime value={user.dateLastLogin} /> },
];

export function UserListPage() {
  return (
    <ListView
      title="Users"
      useList={usersApi.useList}
      loadFailedText={usersApi.fallbacks.load}
      columns={columns}
      createLink={{ to: userPaths.create, label: 'Create User' }}
      rowHref={(user) => userPaths.edit(user._id)}
    />
  );
}
