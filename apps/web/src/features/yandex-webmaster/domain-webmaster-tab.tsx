import { Link } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import {
  YANDEX_VERIFICATION_TYPES,
  type OneClickVerify,
  type WebmasterHost,
  type YandexVerificationType,
} from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { StaticField } from '../../components/form-fields.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { VerifiedBadge } from './hosts-pages.tsx';
import { VerificationInstructions } from './verification-instructions.tsx';
import { YandexCode } from './yandex-labels.tsx';
import {
  useDomainHost,
  useOneClickVerify,
  useVerification,
  useVerifyHost,
  webmasterPaths,
} from './yandex-webmaster-api.ts';

/** Follows a started check until it is verified or says why not. */
function Progress({ accountId, started }: { accountId: string; started: OneClickVerify & { hostId: string } }) {
  const v = useVerification(accountId, started.hostId);
  const state = v.data?.verification_state ?? started.verification.verification_state;
  return (
    <Alert
      variant={state === 'VERIFIED' ? 'success' : state === 'IN_PROGRESS' ? 'info' : 'danger'}
      data-testid="one-click-progress"
    >
      <div>
        Placed {started.placed}; <YandexCode code={started.method} /> verification:{' '}
        <strong>
          <YandexCode code={state} testId="one-click-state" />
        </strong>
        {state === 'IN_PROGRESS' && <Spinner animation="border" size="sm" className="ms-2" />}
      </div>
      {state === 'VERIFIED' && <div data-testid="verification-success">The host is verified on Yandex Webmaster.</div>}
      {v.data?.fail_info && (
        <div className="small">
          <YandexCode code={v.data.fail_info.reason} />: {v.data.fail_info.message}
        </div>
      )}
    </Alert>
  );
}

/** The unverified host's instructions, each method with its one-click verification beside it. */
function Instructions({
  accountId,
  host,
  hasZone,
  busy,
  announce,
  onOneClick,
}: {
  accountId: string;
  host: WebmasterHost;
  hasZone: boolean;
  busy: boolean;
  /** Say so here when the host gets verified (a one-click check says it in its own progress box). */
  announce: boolean;
  onOneClick: (how: 'dns' | 'file') => void;
}) {
  const v = useVerification(accountId, host.host_id);
  const check = useVerifyHost(accountId, host.host_id);
  const dialogs = useDialogs();
  if (v.isPending) return <Spinner animation="border" size="sm" />;
  if (v.isError) return <Alert variant="danger">{errorMessage(v.error)}</Alert>;
  const methods = (v.data.applicable_verifiers ?? []).filter((x): x is YandexVerificationType =>
    (YANDEX_VERIFICATION_TYPES as readonly string[]).includes(x),
  );
  const state = v.data.verification_state;
  if (state === 'VERIFIED') {
    return announce ? (
      <Alert variant="success" data-testid="verification-success">
        The host is verified on Yandex Webmaster.
      </Alert>
    ) : null;
  }
  if (state === 'IN_PROGRESS') {
    return announce ? (
      <Alert variant="info">
        Yandex is checking the host <Spinner animation="border" size="sm" className="ms-1" />
      </Alert>
    ) : null;
  }
  if (!v.data.verification_uin || !methods.length) return null;
  const hostName = host.host_id.split(':')[1] ?? host.host_id;
  return (
    <VerificationInstructions
      uin={v.data.verification_uin}
      hostName={hostName}
      methods={methods}
      action={(method) =>
        method === 'DNS' ? (
          <Button
            size="sm"
            disabled={!hasZone || busy}
            title={
              hasZone
                ? 'Adds the record in the domain’s Cloudflare zone and starts the check'
                : 'The domain has no Cloudflare zone'
            }
            onClick={() => onOneClick('dns')}
          >
            Verify through DNS
          </Button>
        ) : method === 'HTML_FILE' ? (
          <Button
            size="sm"
            disabled={busy}
            title="Writes the file in the domain’s content directory and starts the check"
            onClick={() => onOneClick('file')}
          >
            Verify through file
          </Button>
        ) : (
          <Button
            size="sm"
            variant="outline-primary"
            disabled={busy || check.isPending}
            title="Starts the check once the tag is on the home page"
            onClick={() =>
              void check.mutateAsync(method).then(
                () => v.refetch(),
                (err) => dialogs.apiError(err),
              )
            }
          >
            Verify Host
          </Button>
        )
      }
    />
  );
}

/**
 * The domain's host on its Yandex Webmaster account (verified or not, with a link), and for an unverified host
 * what to publish for each method, with one-click verification: a TXT record in the domain's Cloudflare zone,
 * or a file in its content directory.
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
      {started && started.hostId && <Progress accountId={accountId} started={started} />}
      {host && !host.verified && (
        <Instructions
          accountId={accountId}
          host={host}
          hasZone={hasZone}
          busy={verify.isPending}
          announce={!started}
          onOneClick={run}
        />
      )}
      {!host && (
        // Not added yet: the one-click verifications add the host first.
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
    </div>
  );
}
