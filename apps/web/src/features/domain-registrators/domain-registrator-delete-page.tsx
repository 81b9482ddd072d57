import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { domainRegistratorPaths, domainRegistratorsApi } from './domain-registrators-api.ts';

export function DomainRegistratorDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Domain Registrator"
      id={id}
      useRemove={domainRegistratorsApi.useRemove}
      doneTo={domainRegistratorPaths.list}
      cancelTo={domainRegistratorPaths.edit(id)}
    />
  );
}
