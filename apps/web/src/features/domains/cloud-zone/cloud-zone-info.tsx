import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Spinner from 'react-bootstrap/Spinner';
import { CopyButton } from '../../../components/copy-button.tsx';
import { errorMessage } from '../../../lib/api-error.ts';
import { useCloudZoneInfo } from './cloud-zone-api.ts';

const STATUS_VARIANT: Record<string, string> = { active: 'success', pending: 'warning', moved: 'secondary' };

/**
 * The Cloud Zone Info block of the Cloud tab: with a zone id, the zone's name and name servers, or the error
 * message Cloudflare gave. Nothing without a zone id.
 */
export function CloudZoneInfo({ domainId, cloudZoneId }: { domainId: string; cloudZoneId: string | null | undefined }) {
  const query = useCloudZoneInfo(domainId, Boolean(cloudZoneId));
  if (!cloudZoneId) return null;
  const zone = query.data?.data.result;
  const failure = query.isError ? errorMessage(query.error) : query.data?.errorMessage;
  return (
    <Card className="mb-3" data-testid="cloud-zone-info">
      <Card.Header className="d-flex align-items-center">
        <h2 className="h6 mb-0 me-auto">Cloud Zone Info</h2>
        <Button
          size="sm"
          variant="outline-secondary"
          onClick={() => void query.refetch()}
          disabled={query.isFetching}
          aria-label="Refresh zone info"
        >
          {query.isFetching ? <Spinner as="span" animation="border" size="sm" aria-hidden="true" /> : 'Refresh'}
        </Button>
      </Card.Header>
      <Card.Body>
        {query.isPending ? (
          <Spinner animation="border" size="sm" role="status">
            <span className="visually-hidden">Loading...</span>
          </Spinner>
        ) : failure || !zone ? (
          <Alert variant="danger" className="mb-0" data-testid="cloud-zone-info-error">
            {failure ?? 'Cloudflare sent no zone'}
          </Alert>
        ) : (
          <dl className="row mb-0">
            <dt className="col-sm-3">Zone name</dt>
            <dd className="col-sm-9">
              {zone.name} <Badge bg={STATUS_VARIANT[zone.status] ?? 'info'}>{zone.status}</Badge>
            </dd>
            <dt className="col-sm-3">Name servers</dt>
            <dd className="col-sm-9 mb-0">
              <ul className="list-unstyled mb-0" data-testid="cloud-zone-name-servers">
                {zone.name_servers.map((ns) => (
                  <li key={ns}>
                    <code>{ns}</code>
                  </li>
                ))}
              </ul>
              {zone.name_servers.length > 0 && (
                <div className="mt-2">
                  <CopyButton text={zone.name_servers.join('\n')} size="sm" label="Copy name servers" />
                </div>
              )}
            </dd>
          </dl>
        )}
      </Card.Body>
    </Card>
  );
}
