import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import type { Domain } from '@fleetdesk/contract';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { useZoneInfo } from './cloud-flare-api.ts';
import { CloudFlareSubpage } from './cloud-flare-subpage.tsx';
import { NameServers } from './name-servers.tsx';

const STATUS_VARIANT: Record<string, string> = {
  active: 'success',
  pending: 'warning',
  initializing: 'info',
  moved: 'secondary',
};

function ZoneInfo({ domain }: { domain: Domain }) {
  const query = useZoneInfo(domain._id);
  const refresh = <RefreshButton onRefresh={() => void query.refetch()} pending={query.isFetching} />;
  if (query.isPending) return <LoadingSpinner />;
  if (query.isError) return <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />;
  const { errorMessage: failure, data } = query.data;
  const zone = data.result;
  return (
    <>
      {failure || !zone ? (
        <Alert variant="danger" data-testid="zone-info-error">
          {failure ?? 'Cloudflare sent no zone'}
        </Alert>
      ) : (
        <dl className="row mb-3" data-testid="zone-info">
          <dt className="col-sm-3">Zone name</dt>
          <dd className="col-sm-9">{zone.name}</dd>
          <dt className="col-sm-3">Status</dt>
          <dd className="col-sm-9">
            <Badge bg={STATUS_VARIANT[zone.status] ?? 'secondary'}>{zone.status}</Badge>
            {zone.status === 'pending' && (
              <span className="ms-2 small text-body-secondary">
                waiting for the registrar to point the domain at these name servers
              </span>
            )}
          </dd>
          <dt className="col-sm-3">Name servers</dt>
          <dd className="col-sm-9">
            <NameServers nameServers={zone.name_servers} />
          </dd>
          <dt className="col-sm-3">Zone id</dt>
          <dd className="col-sm-9">
            <code>{zone.id ?? domain.cloudZoneId}</code>
          </dd>
          <dt className="col-sm-3">Ruleset id</dt>
          <dd className="col-sm-9">
            {domain.cloudRulesetId ? (
              <code>{domain.cloudRulesetId}</code>
            ) : (
              <span className="text-body-secondary">none yet (set by Update Firewall Rules)</span>
            )}
          </dd>
        </dl>
      )}
      {refresh}
    </>
  );
}

export function ZoneInfoPage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Cloud Zone Info" needs="zone">
      {(domain) => <ZoneInfo domain={domain} />}
    </CloudFlareSubpage>
  );
}
