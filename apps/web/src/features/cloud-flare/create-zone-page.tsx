import { useState } from 'react';
import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { CLOUD_ZONE_EXISTS_CODE, type CreateZoneResult, type Domain } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { ApiError } from '../../lib/api-error.ts';
import { cloudFlarePaths, useCreateZone } from './cloud-flare-api.ts';
import { CloudFlareSubpage } from './cloud-flare-subpage.tsx';
import { NameServers } from './name-servers.tsx';

type Existing = { message: string; cloudZoneId?: string };

function CreateZone({ domain }: { domain: Domain }) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const create = useCreateZone(domain._id);
  const [created, setCreated] = useState<CreateZoneResult | null>(null);
  const [existing, setExisting] = useState<Existing | null>(null);

  const handleCreate = async () => {
    setExisting(null);
    try {
      const result = await create.mutateAsync();
      setCreated(result);
      toasts.success('Zone created successfully');
    } catch (error) {
      // The zone is already in this account: offer to link it rather than report a failure.
      if (error instanceof ApiError && error.code === CLOUD_ZONE_EXISTS_CODE) {
        setExisting({ message: error.message, cloudZoneId: error.fields?.cloudZoneId });
      } else void dialogs.apiError(error);
    }
  };

  if (created) {
    return (
      <Alert variant="success" data-testid="create-zone-result">
        <Alert.Heading as="h2" className="h5">
          Zone {created.name} created
        </Alert.Heading>
        <p className="mb-2">
          Zone id <code>{created.cloudZoneId}</code>, status <strong>{created.status}</strong>. Set these name servers
          at the domain&apos;s registrar; Cloudflare activates the zone once they answer for it.
        </p>
        <NameServers nameServers={created.nameServers} />
        <hr />
        <div className="d-flex flex-wrap gap-2">
          <LinkButton to={cloudFlarePaths.action(domain._id, 'update-dns')} size="sm" variant="outline-success">
            Update DNS
          </LinkButton>
          <LinkButton to={cloudFlarePaths.cloudTab(domain._id)} size="sm" variant="success">
            Back to domain
          </LinkButton>
        </div>
      </Alert>
    );
  }

  if (domain.cloudZoneId) {
    return (
      <Alert variant="info">
        This domain already has the Cloudflare zone <code>{domain.cloudZoneId}</code>. Unlink or delete it before
        creating another.{' '}
        <LinkButton to={cloudFlarePaths.action(domain._id, 'zone-info')} size="sm" variant="outline-primary">
          Zone Info
        </LinkButton>
      </Alert>
    );
  }

  return (
    <>
      <p>
        Creates the zone <strong>{domain.domainNameUnicode}</strong> (a full setup) in the Cloudflare account of{' '}
        {domain.cloud?.email} and links it to this domain. Cloudflare then assigns the name servers to set at the
        registrar.
      </p>
      <Button onClick={() => void handleCreate()} disabled={create.isPending}>
        {create.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
        Create Zone
      </Button>
      {existing && (
        <Alert variant="warning" className="mt-3" data-testid="zone-exists">
          <p className="mb-2">{existing.message}</p>
          {existing.cloudZoneId && (
            <LinkButton
              to={`${cloudFlarePaths.action(domain._id, 'link-zone')}?cloudZoneId=${encodeURIComponent(existing.cloudZoneId)}`}
              size="sm"
            >
              Link this zone
            </LinkButton>
          )}
        </Alert>
      )}
    </>
  );
}

export function CreateZonePage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Create Zone" needs="cloud">
      {(domain) => <CreateZone domain={domain} />}
    </CloudFlareSubpage>
  );
}
