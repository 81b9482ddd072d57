import Badge from 'react-bootstrap/Badge';
import type { Server } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<Server>('servers');

type ServerLike = Pick<Server, 'IPAddress' | 'email'>;
type Capacity = Pick<Server, 'domainsQty' | 'domainsLimitQty'>;

/** "email / IP address", or the IP address alone when the server has no email. */
export const serverLabel = (server: ServerLike) =>
  server.email ? `${server.email} / ${server.IPAddress}` : server.IPAddress;

/** A limit of 0 means no limit (docs/decisions/006-server-capacity-zero.md). */
export const isServerFull = (server: Capacity) =>
  server.domainsLimitQty > 0 && server.domainsQty >= server.domainsLimitQty;

/** "37 / 50", or "37 / no limit". */
export const serverFill = (server: Capacity) =>
  `${server.domainsQty} / ${server.domainsLimitQty > 0 ? server.domainsLimitQty : 'no limit'}`;

const columns: Column<Server>[] = [
  { header: '№', render: (server) => server.serverNo, width: '5rem' },
  { header: 'Server', render: serverLabel },
  {
    header: 'Domains',
    width: '10rem',
    render: (server) => (
      <span className="text-nowrap">
        {serverFill(server)}
        {isServerFull(server) && (
          <Badge bg="danger" className="ms-2" title="This server has no free place for a domain">
            Full
          </Badge>
        )}
      </span>
    ),
  },
];

/** "Select a server": each server's fill ("37 / 50"), full ones marked. */
export function ServerPicker(props: PickerProps<Server>) {
  return <Picker title="Select a server" useList={useList} columns={columns} {...props} />;
}
