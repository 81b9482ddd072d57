import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { domainPaths, domainsApi } from './domains-api.ts';

/** Deleting a domain removes only the record: the zone, the registration and the server's files stay. */
export function DomainDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Domain"
      id={id}
      useRemove={domainsApi.useRemove}
      doneTo={domainPaths.list}
      cancelTo={domainPaths.edit(id)}
    />
  );
}
