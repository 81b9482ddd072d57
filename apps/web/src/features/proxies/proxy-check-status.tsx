import Badge from 'react-bootstrap/Badge';
import type { Proxy } from '@fleetdesk/contract';
import { formatDateTime } from '../../lib/format.ts';

/** The last check of a proxy: OK with its latency, Error with its reason as a tooltip, or Not checked. */
export function ProxyCheckStatus({
  proxy,
}: {
  proxy: Pick<Proxy, 'checkStatus' | 'checkLatencyMs' | 'checkError' | 'checkedAt'>;
}) {
  if (!proxy.checkStatus) return <span className="text-body-secondary">Not checked</span>;
  const when = proxy.checkedAt ? `Checked ${formatDateTime(proxy.checkedAt)}` : undefined;
  if (proxy.checkStatus === 'ok') {
    return (
      <span title={when}>
        <Badge bg="success">OK</Badge>
        {proxy.checkLatencyMs !== null && <span className="ms-2 small">{proxy.checkLatencyMs} ms</span>}
      </span>
    );
  }
  return (
    <span title={[proxy.checkError, when].filter(Boolean).join(' · ')}>
      <Badge bg="danger">Error</Badge>
    </span>
  );
}
