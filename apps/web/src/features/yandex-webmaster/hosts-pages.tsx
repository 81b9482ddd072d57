import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import Badge from 'react-bootstrap/Badge';
import Form from 'react-bootstrap/Form';
import Table from 'react-bootstrap/Table';
import { AddHostInputSchema } from '@fleetdesk/contract';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { AccountActionsMenu } from './account-pages.tsx';
import { accountsApi, useAddHost, useDeleteHost, useHosts, webmasterPaths } from './yandex-webmaster-api.ts';

export function VerifiedBadge({ verified }: { verified: boolean }) {
  return verified ? (
    <Badge bg="success">Verified</Badge>
  ) : (
    <Badge bg="warning" text="dark">
      Not verified
    </Badge>
  );
}

function AccountHeader({ id, title }: { id: string; title: string }) {
  const account = accountsApi.useItem(id);
  return (
    <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
      <h1 className="h3 mb-0 me-auto">
        {title}
        {account.data && <span className="text-body-secondary fs-5"> · {account.data.name}</span>}
      </h1>
      <AccountActionsMenu id={id} />
      <LinkButton to={webmasterPaths.edit(id)} variant="outline-secondary">
        Back to account
      </LinkButton>
    </div>
  );
}

export function HostsPage() {
  const { id = '' } = useParams();
  const hosts = useHosts(id);
  return (
    <>
      <AccountHeader id={id} title="Hosts" />
      <div className="d-flex gap-2 mb-3">
        <LinkButton to={webmasterPaths.createHost(id)}>Create Host</LinkButton>
        <RefreshButton onRefresh={() => void hosts.refetch()} pending={hosts.isFetching} />
      </div>
      {hosts.isPending ? (
        <LoadingSpinner />
      ) : hosts.isError ? (
        <ErrorBox detail={errorMessage(hosts.error)} onRefresh={() => void hosts.refetch()} />
      ) : (
        <Table hover responsive size="sm" className="fd-record-table">
          <thead>
            <tr>
              <th style={{ width: '4rem' }}>#</th>
              <th>Host</th>
              <th>Host Id</th>
              <th>Verified</th>
            </tr>
          </thead>
          <tbody>
            {hosts.data.length === 0 && (
              <tr>
                <td colSpan={4} className="text-body-secondary">
                  No hosts yet
                </td>
              </tr>
            )}
            {hosts.data.map((h, i) => (
              <tr key={h.host_id}>
                <td data-label="#">{i + 1}</td>
                <td data-label="Host">
                  <Link to={webmasterPaths.host(id, h.host_id)}>
                    {h.unicode_host_url ?? h.ascii_host_url ?? h.host_id}
                  </Link>
                </td>
                <td data-label="Host Id">
                  <code>{h.host_id}</code>
                </td>
                <td data-label="Verified">
                  <VerifiedBadge verified={h.verified} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}

export function CreateHostPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const toasts = useToasts();
  const add = useAddHost(id);
  const [hostUrl, setHostUrl] = useState('');
  const [error, setError] = useState<string>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = AddHostInputSchema.safeParse({ hostUrl });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    try {
      const r = await add.mutateAsync(parsed.data.hostUrl);
      toasts.success('Host created successfully');
      await navigate(webmasterPaths.host(id, r.host_id, 'verification'));
    } catch (err) {
      const field = (err as { fields?: Record<string, string> }).fields?.hostUrl;
      if (field) setError(field);
      else void dialogs.apiError(err);
    }
  };
  return (
    <>
      <AccountHeader id={id} title="Create Host" />
      <Form noValidate onSubmit={(e) => void submit(e)} style={{ maxWidth: 720 }}>
        <Form.Group className="mb-3" controlId="hostUrl">
          <Form.Label>
            Host Url <span className="text-danger">*</span>
          </Form.Label>
          <Form.Control
            value={hostUrl}
            onChange={(e) => setHostUrl(e.target.value)}
            placeholder="https://example.com"
            maxLength={500}
            isInvalid={Boolean(error)}
            autoFocus
          />
          <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>
        </Form.Group>
        <SubmitButton pending={add.isPending}>Create</SubmitButton>
      </Form>
    </>
  );
}

export function HostDeletePage() {
  const { id = '', hostId = '' } = useParams();
  const navigate = useNavigate();
  const toasts = useToasts();
  const dialogs = useDialogs();
  const remove = useDeleteHost(id);
  const cancel = () => void navigate(webmasterPaths.host(id, hostId), { replace: true });
  return (
    <ConfirmModal
      show
      title="Delete Host"
      message={`Are you sure you want to delete the host ${hostId} from this account?`}
      confirmLabel="Delete"
      pending={remove.isPending}
      onCancel={cancel}
      onConfirm={() =>
        void remove.mutateAsync(hostId).then(
          async () => {
            toasts.success('Host deleted successfully');
            await navigate(webmasterPaths.hosts(id), { replace: true });
          },
          (err) => void dialogs.apiError(err),
        )
      }
    />
  );
}
