import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { brandPaths, brandsApi } from './brands-api.ts';

export function BrandDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Brand"
      id={id}
      useRemove={brandsApi.useRemove}
      doneTo={brandPaths.list}
      cancelTo={brandPaths.edit(id)}
    />
  );
}
