import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { regionPaths, regionsApi } from './regions-api.ts';

export function RegionDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Region"
      id={id}
      useRemove={regionsApi.useRemove}
      doneTo={regionPaths.list}
      cancelTo={regionPaths.edit(id)}
    />
  );
}
