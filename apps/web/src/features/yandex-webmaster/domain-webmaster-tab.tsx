import { Link } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import type { OneClickVerify } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { StaticField } from '../../components/form-fields.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { VerifiedBadge } from './hosts-pages.tsx';
import { useDomainHost, useOneClickVerify, useVerification, webmasterPaths } from './yandex-webmaster-api.ts';

/** Follows a started check until VERIFIED or the failure reason. */
function Progress({ accountId, started }: { accountId: string; started: OneClickVerify & { hostId: string } }) {
  const v = useVerification(accountId, started.hostId);
  const state = v.data?.verification_state ?? started.verification.verification_state;
  return (
    <Alert
      variant={state === 'VERIFIED' ? 'success' : state === 'IN_PROGRESS' ? 'info' : 'danger'}
      data-testid="one-click-progress"
    >
      <div>
        Placed {started.placed}; {started.method} verification: <strong data-testid="one-click-state">{state}</strong>
        {state === 'IN_PROGRESS' && <Spinner animation="border" size="sm" className="ms-2" />}
      </div>
      {v.data?.fail_info && (
        <div className="small">
          {v.data.fail_info.reason}: {v.data.fail_info.message}
        </div>
      )}
    </Alert>
  );
}

/**
 * The domain's host on its Yandex Webmaster account (verified or not, with a link), and one-click
 * verification: through a TXT record in the domain's Cloudflare zone, or a file in its content directory.
 */
export function DomainWebmasterTab({
  domainId,
  accountId,
  hasZone,
  dirty,
}: {
  domainId: string;
  accountId: string;
  hasZone: boolean;
  dirty: boolean;
}) {
  const q = useDomainHost(domainId, !dirty);
  const verify = useOneClickVerify(domainId);
  const dialogs = useDialogs();
  if (dirty) return <p className="text-body-secondary small">Save the domain to see its host on the picked account.</p>;
  if (q.isPending) return <Spinner animation="border" size="sm" />;
  if (q.isError) return <Alert variant="danger">{errorMessage(q.error)}</Alert>;
  const { host, hostUrl } = q.data;
  const started = verify.data && { ...verify.data, hostId: host?.host_id ?? '' };
  const run = (how: 'dns' | 'file') => void verify.mutateAsync(how).catch((err) => dialogs.apiError(err));
  return (
    <div data-testid="domain-webmaster-host">
      <StaticField
        label="Host"
        value={
          host ? (
            <Link to={webmasterPaths.host(accountId, host.host_id, host.verified ? undefined : 'verification')}>
              {host.unicode_host_url ?? host.host_id}
            </Link>
          ) : (
            `${hostUrl} is not added on this account yet`
          )
        }
      />
      {host && <StaticField label="Verified" value={<VerifiedBadge verified={host.verified} />} />}
      {!host?.verified && (
        <div className="d-flex flex-wrap gap-2 mb-3">
          <Button
            variant="outline-primary"
            disabled={!hasZone || verify.isPending}
            title={hasZone ? undefined : 'The domain has no Cloudflare zone'}
            onClick={() => run('dns')}
          >
            Verify through DNS
          </Button>
          <Button variant="outline-primary" disabled={verify.isPending} onClick={() => run('file')}>
            Verify through file
          </Button>
        </div>
      )}
      {started && started.hostId && <Progress accountId={accountId} started={started} />}
    </div>
  );
}
