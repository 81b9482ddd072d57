import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { serverPaths, serversApi } from './servers-api.ts';

export function ServerDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Server"
      id={id}
      useRemove={serversApi.useRemove}
      doneTo={serverPaths.list}
      cancelTo={serverPaths.edit(id)}
    />
  );
}
