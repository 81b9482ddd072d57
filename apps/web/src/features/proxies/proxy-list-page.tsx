import { PROXY_CHECK_FILTERS, PROXY_CHECK_FILTER_LABELS, type Proxy } from '@fleetdesk/contract';
import { SelectFilter, useUrlFilter } from '../../components/select-filter.tsx';
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

const CHECK_OPTIONS = PROXY_CHECK_FILTERS.map((c) => ({ value: c, label: PROXY_CHECK_FILTER_LABELS[c] }));

export function ProxyListPage() {
  const [check, setCheck] = useUrlFilter('check');
  return (
    <ListView
      title="Proxies"
      useList={proxiesApi.useList}
      columns={columns}
      extraParams={{ check }}
      filters={
        <SelectFilter label="Check" value={check} onChange={setCheck} allLabel="Any check" options={CHECK_OPTIONS} />
      }
      createLink={{ to: proxyPaths.create, label: 'Create Proxy' }}
      rowHref={(proxy) => proxyPaths.edit(proxy._id)}
    />
  );
}
