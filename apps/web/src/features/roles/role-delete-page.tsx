import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { rolePaths, rolesApi } from './roles-api.ts';

export function RoleDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Role"
      id={id}
      useRemove={rolesApi.useRemove}
      doneTo={rolePaths.list}
      cancelTo={rolePaths.edit(id)}
    />
  );
}
