import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { cloudPaths, cloudsApi } from './clouds-api.ts';

export function CloudDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Cloud"
      id={id}
      useRemove={cloudsApi.useRemove}
      doneTo={cloudPaths.list}
      cancelTo={cloudPaths.edit(id)}
    />
  );
}
