import type { Role } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { ruleLabels } from '../../components/pickers/role-picker.tsx';
import { rolePaths, rolesApi } from './roles-api.ts';

const columns: Column<Role>[] = [
  { header: '№', render: (role) => role.roleNo, width: '6rem' },
  { header: 'Name', render: (role) => role.name },
  { header: 'Rules', render: (role) => ruleLabels(role.rules) || '—' },
];

export function RoleListPage() {
  return (
    <ListView
      title="Roles"
      useList={rolesApi.useList}
      loadFailedText={rolesApi.fallbacks.load}
      columns={columns}
      createLink={{ to: rolePaths.create, label: 'Create Role' }}
      rowHref={(role) => rolePaths.edit(role._id)}
    />
  );
}
