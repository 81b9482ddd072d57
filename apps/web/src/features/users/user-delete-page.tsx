import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { userPaths, usersApi } from './users-api.ts';

export function UserDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="User"
      id={id}
      useRemove={usersApi.useRemove}
      doneTo={userPaths.list}
      cancelTo={userPaths.edit(id)}
    />
  );
}
