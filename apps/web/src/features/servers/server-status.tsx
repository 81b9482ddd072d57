import Badge from 'react-bootstrap/Badge';
import type { Server, ServerStatus } from '@fleetdesk/contract';
import { formatDateTime } from '../../lib/format.ts';

const VARIANTS: Record<ServerStatus, string> = { online: 'success', offline: 'danger', unknown: 'secondary' };

export function ServerStatusBadge({ status }: { status: ServerStatus }) {
  return <Badge bg={VARIANTS[status]}>{status}</Badge>;
}

/** The list's Status cell: the outcome of the last check, its time below, its error as a tooltip. */
export function ServerStatusCell({ server }: { server: Pick<Server, 'status' | 'checkedAt' | 'checkError'> }) {
  return (
    <span title={server.checkError ?? undefined}>
      <ServerStatusBadge status={server.status} />
      {server.checkedAt && (
        <small className="d-block text-body-secondary" data-testid="server-checked-at">
          {formatDateTime(server.checkedAt)}
        </small>
      )}
    </span>
  );
}
