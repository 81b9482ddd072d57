import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import { DIRECT_ADMIN_MESSAGES, type DirectAdminDomainInfoData } from '@fleetdesk/contract';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { PanelFrame } from '../../components/panel-frame.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { useToasts } from '../../components/toasts.tsx';
import {
  useCreateDirectAdminDomain,
  useDeleteDirectAdminDomain,
  useDirectAdminInfo,
  type DirectAdminApiError,
} from './direct-admin-api.ts';

const yesNo = (v: boolean | null) => (v === null ? '—' : v ? 'Yes' : 'No');

/** DirectAdmin's refusal in its own words (title and details), else the API's message. */
function PanelError({ error, testId }: { error: DirectAdminApiError; testId: string }) {
  const sr = error.serviceResponse;
  return (
    <Alert variant="danger" data-testid={testId}>
      {sr ? (
        <>
          <strong>{sr.error}</strong>
          {sr.result && <div style={{ whiteSpace: 'pre-line' }}>{sr.result}</div>}
        </>
      ) : (
        error.message
      )}
    </Alert>
  );
}

function DomainDetails({ info }: { info: DirectAdminDomainInfoData }) {
  return (
    <dl className="row mb-3 small" data-testid="direct-admin-details">
      <dt className="col-sm-4">Domain</dt>
      <dd className="col-sm-8">
        {info.domain}{' '}
        {info.suspended ? (
          <Badge bg="warning">suspended</Badge>
        ) : (
          info.active !== false && <Badge bg="success">active</Badge>
        )}
      </dd>
      <dt className="col-sm-4">User</dt>
      <dd className="col-sm-8">{info.username ?? '—'}</dd>
      <dt className="col-sm-4">IP addresses</dt>
      <dd className="col-sm-8">{info.ips.length ? info.ips.join(', ') : '—'}</dd>
      <dt className="col-sm-4">SSL</dt>
      <dd className="col-sm-8">{yesNo(info.ssl)}</dd>
      <dt className="col-sm-4">PHP</dt>
      <dd className="col-sm-8">{yesNo(info.php)}</dd>
      <dt className="col-sm-4">Bandwidth limit</dt>
      <dd className="col-sm-8">{info.bandwidthLimit ?? '—'}</dd>
      <dt className="col-sm-4">Disk quota</dt>
      <dd className="col-sm-8 mb-0">{info.quotaLimit ?? '—'}</dd>
    </dl>
  );
}

/**
 * The domain's Direct Admin tab (spec 2 §4): not created → Create domain → created; created → Delete domain
 * (after a confirm) → not created. DirectAdmin's own error text is shown when it refuses.
 */
export function DirectAdminTab({ domainId }: { domainId: string }) {
  const toasts = useToasts();
  const info = useDirectAdminInfo(domainId);
  const create = useCreateDirectAdminDomain(domainId);
  const remove = useDeleteDirectAdminDomain(domainId);
  const [confirming, setConfirming] = useState(false);

  return (
    <PanelFrame
      name="direct-admin"
      query={info}
      showError={(error, testId) => <PanelError error={error} testId={testId} />}
    >
      {(data) => {
        const busy = create.isPending || remove.isPending || info.isFetching;
        return (
          <>
            {create.error && <PanelError error={create.error} testId="direct-admin-error" />}
            {remove.error && <PanelError error={remove.error} testId="direct-admin-error" />}
            {data.domainCreated ? (
              <>
                <Alert variant="success" data-testid="direct-admin-state">
                  {DIRECT_ADMIN_MESSAGES.isCreated}
                </Alert>
                {data.domainInfoData && <DomainDetails info={data.domainInfoData} />}
                <Button
                  variant="danger"
                  onClick={() => {
                    create.reset();
                    remove.reset();
                    setConfirming(true);
                  }}
                  disabled={busy}
                >
                  Delete domain
                </Button>
              </>
            ) : (
              <>
                <Alert variant="secondary" data-testid="direct-admin-state">
                  {DIRECT_ADMIN_MESSAGES.notCreated}
                </Alert>
                <SubmitButton
                  type="button"
                  pending={create.isPending}
                  disabled={busy}
                  onClick={() => {
                    remove.reset();
                    create.mutate(undefined, { onSuccess: () => toasts.success(DIRECT_ADMIN_MESSAGES.created) });
                  }}
                >
                  Create domain
                </SubmitButton>
              </>
            )}
            <ConfirmModal
              show={confirming}
              title="Delete domain"
              message={DIRECT_ADMIN_MESSAGES.deleteConfirm(data.domainName)}
              confirmLabel="Delete domain"
              confirmVariant="danger"
              pending={remove.isPending}
              onCancel={() => setConfirming(false)}
              onConfirm={() =>
                remove.mutate(undefined, {
                  onSuccess: () => toasts.success(DIRECT_ADMIN_MESSAGES.deleted),
                  onSettled: () => setConfirming(false),
                })
              }
            />
          </>
        );
      }}
    </PanelFrame>
  );
}
