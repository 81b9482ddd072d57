import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { launchProfilePaths, launchProfilesApi } from './launch-profiles-api.ts';

export function LaunchProfileDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Launch Profile"
      id={id}
      useRemove={launchProfilesApi.useRemove}
      doneTo={launchProfilePaths.list}
      cancelTo={launchProfilePaths.edit(id)}
    />
  );
}
