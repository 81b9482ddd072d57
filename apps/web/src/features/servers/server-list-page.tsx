import { SERVER_STATUSES, type Server } from '@fleetdesk/contract';
import { SelectFilter, useUrlFilter } from '../../components/select-filter.tsx';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { formatBytes, formatNumber } from '../../lib/format.ts';
import { ServerStatusCell } from './server-status.tsx';
import { serverPaths, serversApi } from './servers-api.ts';

const columns: Column<Server>[] = [
  { header: '№', render: (server) => server.serverNo, width: '6rem' },
  { header: 'IP Address', render: (server) => server.IPAddress },
  { header: 'Domains', render: (server) => formatNumber(server.domainsQty) },
  { header: 'Max Domains', render: (server) => formatNumber(server.domainsLimitQty) },
  { header: 'Status', render: (server) => <ServerStatusCell server={server} /> },
  {
    header: 'Free space',
    render: (server) => (
      <span title={server.totalSpace !== null ? `of ${formatBytes(server.totalSpace)}` : undefined}>
        {formatBytes(server.freeSpace)}
      </span>
    ),
  },
];

const STATUS_OPTIONS = SERVER_STATUSES.map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) }));

export function ServerListPage() {
  const [status, setStatus] = useUrlFilter('status');
  return (
    <ListView
      title="Servers"
      useList={serversApi.useList}
      columns={columns}
      extraParams={{ status }}
      filters={
        <SelectFilter
          label="Status"
          value={status}
          onChange={setStatus}
          allLabel="All statuses"
          options={STATUS_OPTIONS}
        />
      }
      createLink={{ to: serverPaths.create, label: 'Create Server' }}
      rowHref={(server) => serverPaths.edit(server._id)}
    />
  );
}
