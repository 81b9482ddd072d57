import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { proxiesApi, proxyPaths } from './proxies-api.ts';

export function ProxyDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Proxy"
      id={id}
      useRemove={proxiesApi.useRemove}
      doneTo={proxyPaths.list}
      cancelTo={proxyPaths.edit(id)}
    />
  );
}
