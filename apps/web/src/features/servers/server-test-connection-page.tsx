import { useState } from 'react';
import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import type { Server, TestConnectionResult } from '@fleetdesk/contract';
import { LinkButton } from '../../components/link-button.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { formatBytes, formatDateTime } from '../../lib/format.ts';
import { ServerStatusBadge } from './server-status.tsx';
import { ServerSubpage } from './server-subpage.tsx';
import { serverPaths, useTestConnection } from './servers-api.ts';

/** none, the success message, or the error in a red alert (never a dialog). */
type Outcome =
  { kind: 'none' } | { kind: 'success'; result: TestConnectionResult } | { kind: 'error'; message: string };

function TestConnection({ server }: { server: Server }) {
  const test = useTestConnection(server._id);
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'none' });

  const handleTest = () => {
    setOutcome({ kind: 'none' });
    test.mutate(undefined, {
      onSuccess: (result) => setOutcome({ kind: 'success', result }),
      // Deliberately not the generic Error dialog: the reason shows in the page's red alert.
      onError: (error) => setOutcome({ kind: 'error', message: errorMessage(error) }),
    });
  };

  return (
    <>
      <p>
        Connects over SSH with the stored key and reads the free space of{' '}
        <code>{server.domainsPath ?? '(no domains path set)'}</code>.
      </p>
      <dl className="row mb-3">
        <dt className="col-sm-3">Status</dt>
        <dd className="col-sm-9">
          <ServerStatusBadge status={server.status} />
          {server.checkedAt && (
            <span className="ms-2 text-body-secondary small">checked {formatDateTime(server.checkedAt)}</span>
          )}
        </dd>
        <dt className="col-sm-3">Free space</dt>
        <dd className="col-sm-9">
          {formatBytes(server.freeSpace)}
          {server.totalSpace !== null && (
            <span className="text-body-secondary"> of {formatBytes(server.totalSpace)}</span>
          )}
        </dd>
      </dl>
      <Button variant="primary" onClick={handleTest} disabled={test.isPending} className="mb-3">
        {test.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
        Test Connection
      </Button>
      {outcome.kind === 'success' && (
        <Alert variant="success" data-testid="test-connection-result">
          <div className="fw-semibold">{outcome.result.message}</div>
          <div className="small mt-1">
            Free space {formatBytes(outcome.result.freeSpace)}
            {outcome.result.totalSpace !== null && <> of {formatBytes(outcome.result.totalSpace)}</>}
            {outcome.result.hostKeyFingerprint && (
              <>
                {' · '}host key <code>{outcome.result.hostKeyFingerprint}</code>
              </>
            )}
          </div>
        </Alert>
      )}
      {outcome.kind === 'error' && (
        <Alert variant="danger" data-testid="test-connection-result">
          {outcome.message}
        </Alert>
      )}
    </>
  );
}

export function ServerTestConnectionPage() {
  const { id = '' } = useParams();
  return (
    <ServerSubpage
      id={id}
      title="Server Test Connection"
      links={
        <LinkButton to={serverPaths.rsaKey(id)} variant="outline-primary">
          Manage RSA Key
        </LinkButton>
      }
    >
      {(server) => <TestConnection server={server} />}
    </ServerSubpage>
  );
}
