import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { dnsTemplatePaths, dnsTemplatesApi } from './dns-templates-api.ts';

export function DnsTemplateDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="DNS Template"
      id={id}
      useRemove={dnsTemplatesApi.useRemove}
      doneTo={dnsTemplatePaths.list}
      cancelTo={dnsTemplatePaths.edit(id)}
    />
  );
}
