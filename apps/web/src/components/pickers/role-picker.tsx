import { RULE_LABELS, type Role, type Rule } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<Role>('roles');

export const ruleLabels = (rules: readonly string[]) =>
  rules.map((rule) => RULE_LABELS[rule as Rule] ?? rule).join(', ');

const columns: Column<Role>[] = [
  { header: '№', render: (role) => role.roleNo, width: '6rem' },
  { header: 'Name', render: (role) => role.name },
  { header: 'Rules', render: (role) => ruleLabels(role.rules) },
];

export const roleLabel = (role: Pick<Role, 'name'>) => role.name;

/** "Select a role": a searchable, paginated modal list of roles. */
export function RolePicker(props: PickerProps<Role>) {
  return <Picker title="Select a role" useList={useList} columns={columns} {...props} />;
}
