import type { ReactNode } from 'react';
import { useParams } from 'react-router';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Tab from 'react-bootstrap/Tab';
import { get, useFormState } from 'react-hook-form';
import type { Server, ServerInput } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { CheckField, StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { QueryTabs } from '../../components/query-tabs.tsx';
import { SecretField, secretFormValue } from '../../components/secret-field.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { EMPTY, formatBytes, formatDateTime, formatNumber } from '../../lib/format.ts';
import { ServerStatusBadge } from './server-status.tsx';
import { ServerFormSchema, serverPaths, serversApi, useClearHostKey, type ServerFormValues } from './servers-api.ts';

const GENERAL_FIELDS = ['IPAddress', 'email', 'domainsLimitQty', 'username', 'sshPort', 'domainsPath'] as const;
const DIRECT_ADMIN_FIELDS = ['directAdminUri', 'directAdminUsername', 'directAdminPassword'] as const;
const ISP_MANAGER_FIELDS = [
  'ispmanagerUri',
  'ispmanagerUsername',
  'ispmanagerPassword',
  'ispmanagerAcceptSelfSigned',
] as const;

/** A tab's title, marked when one of its fields has an error (the other tabs' fields are hidden). */
function TabTitle({ title, fields }: { title: string; fields: readonly (keyof ServerFormValues)[] }) {
  const { errors } = useFormState<ServerFormValues>();
  const count = fields.filter((name) => get(errors, name)).length;
  return (
    <>
      {title}
      {count > 0 && (
        <Badge bg="danger" pill className="ms-2" aria-label={`${count} error${count === 1 ? '' : 's'}`}>
          !
        </Badge>
      )}
    </>
  );
}

function HostKey({ server }: { server: Server }) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const clear = useClearHostKey(server._id);
  const handleClear = async () => {
    const confirmed = await dialogs.confirm(
      'Are you sure you want to clear the trusted host key? The next connection test will trust the key the server presents.',
      { confirmVariant: 'danger' },
    );
    if (!confirmed) return;
    try {
      await clear.mutateAsync();
      toasts.success('Host key cleared successfully');
    } catch (error) {
      void dialogs.apiError(error);
    }
  };
  if (!server.hostKeyFingerprint)
    return <span className="text-body-secondary">Not trusted yet (trusted on the first connection test)</span>;
  return (
    <div className="d-flex flex-wrap align-items-center gap-2">
      <code data-testid="host-key-fingerprint">{server.hostKeyFingerprint}</code>
      <Button
        type="button"
        size="sm"
        variant="outline-danger"
        onClick={() => void handleClear()}
        disabled={clear.isPending}
      >
        Clear host key
      </Button>
    </div>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="col-sm-4">{label}</dt>
      <dd className="col-sm-8">{children}</dd>
    </>
  );
}

/** The read-only outcome of checks and the key state, on the edit page. */
function ServerState({ server }: { server: Server }) {
  return (
    <fieldset className="border rounded p-3 mb-3">
      <legend className="float-none w-auto fs-6 px-2 mb-0">Connection</legend>
      <dl className="row mb-0">
        <Row label="Status">
          <ServerStatusBadge status={server.status} />
        </Row>
        <Row label="Checked">{formatDateTime(server.checkedAt)}</Row>
        {server.checkError && (
          <Row label="Last error">
            <span className="text-danger">{server.checkError}</span>
          </Row>
        )}
        <Row label="Free space">
          {formatBytes(server.freeSpace)}
          {server.totalSpace !== null && (
            <span className="text-body-secondary"> of {formatBytes(server.totalSpace)}</span>
          )}
        </Row>
        <Row label="Domains">{formatNumber(server.domainsQty)}</Row>
        <Row label="RSA Key">
          {server.rsaKeySet ? (
            <>
              {server.rsaKeyType ?? 'Set'} <code className="ms-1">{server.rsaKeyFingerprint ?? EMPTY}</code>
            </>
          ) : (
            <span className="text-body-secondary">Not set</span>
          )}
        </Row>
        <Row label="Host key">
          <HostKey server={server} />
        </Row>
      </dl>
    </fieldset>
  );
}

export function ServerFormPage() {
  const { id } = useParams();
  return (
    <FormView<Server, ServerFormValues, ServerInput>
      entity="Server"
      resource={serversApi}
      schema={ServerFormSchema as never}
      id={id}
      defaultValues={{
        IPAddress: '',
        email: '',
        domainsLimitQty: 0,
        username: 'root',
        sshPort: 22,
        domainsPath: '',
        ispmanagerUri: '',
        ispmanagerUsername: '',
        ispmanagerPassword: '',
        ispmanagerAcceptSelfSigned: false,
        directAdminUri: '',
        directAdminUsername: '',
        directAdminPassword: '',
      }}
      toValues={(server) => ({
        IPAddress: server.IPAddress,
        email: server.email ?? '',
        domainsLimitQty: server.domainsLimitQty,
        username: server.username,
        sshPort: server.sshPort,
        domainsPath: server.domainsPath ?? '',
        ispmanagerUri: server.ispmanagerUri ?? '',
        ispmanagerUsername: server.ispmanagerUsername ?? '',
        ispmanagerPassword: secretFormValue(server.ispmanagerPassword),
        ispmanagerAcceptSelfSigned: server.ispmanagerAcceptSelfSigned,
        directAdminUri: server.directAdminUri ?? '',
        directAdminUsername: server.directAdminUsername ?? '',
        directAdminPassword: secretFormValue(server.directAdminPassword),
      })}
      paths={serverPaths}
      actions={(server) => (
        <>
          <LinkButton to={serverPaths.rsaKey(server._id)} variant="outline-primary">
            Manage RSA Key
          </LinkButton>
          <LinkButton to={serverPaths.testConnection(server._id)} variant="outline-primary">
            Test Connection
          </LinkButton>
        </>
      )}
    >
      {({ item }) => {
        const reveal = item && { resource: 'servers', id: item._id };
        return (
          <>
            {item && <StaticField label="№" value={item.serverNo} />}
            <QueryTabs defaultActiveKey="general" id="server-tabs">
              <Tab eventKey="general" title={<TabTitle title="General" fields={GENERAL_FIELDS} />}>
                <TextField<ServerFormValues>
                  name="IPAddress"
                  label="IP Address"
                  required
                  maxLength={45}
                  placeholder="203.0.113.10"
                  autoComplete="off"
                  autoFocus
                />
                <TextField<ServerFormValues>
                  name="email"
                  label="Email"
                  type="email"
                  maxLength={320}
                  autoComplete="off"
                />
                <TextField<ServerFormValues>
                  name="domainsLimitQty"
                  label="Max Domains"
                  type="number"
                  min={0}
                  step={1}
                />
                <TextField<ServerFormValues>
                  name="username"
                  label="Username"
                  maxLength={200}
                  autoComplete="off"
                  help="The SSH user (root by default)."
                />
                <TextField<ServerFormValues>
                  name="sshPort"
                  label="SSH Port"
                  type="number"
                  min={1}
                  max={65535}
                  step={1}
                />
                <TextField<ServerFormValues>
                  name="domainsPath"
                  label="Domains Path"
                  maxLength={1000}
                  placeholder="/www"
                  help="An absolute path; the connection test reads its free space."
                />
                {item && <ServerState server={item} />}
              </Tab>
              <Tab eventKey="direct-admin" title={<TabTitle title="Direct Admin" fields={DIRECT_ADMIN_FIELDS} />}>
                <TextField<ServerFormValues>
                  name="directAdminUri"
                  label="Direct Admin URI"
                  type="url"
                  maxLength={2000}
                  placeholder="https://203.0.113.10:2222"
                />
                <TextField<ServerFormValues>
                  name="directAdminUsername"
                  label="Direct Admin Username"
                  maxLength={200}
                  autoComplete="off"
                />
                <SecretField<ServerFormValues>
                  name="directAdminPassword"
                  label="Direct Admin Password"
                  maxLength={4096}
                  reveal={reveal}
                />
              </Tab>
              <Tab eventKey="isp-manager" title={<TabTitle title="ISP Manager" fields={ISP_MANAGER_FIELDS} />}>
                <TextField<ServerFormValues>
                  name="ispmanagerUri"
                  label="ISP Manager URI"
                  type="url"
                  maxLength={2000}
                  placeholder="https://203.0.113.10:1500"
                />
                <TextField<ServerFormValues>
                  name="ispmanagerUsername"
                  label="ISP Manager Username"
                  maxLength={200}
                  autoComplete="off"
                />
                <SecretField<ServerFormValues>
                  name="ispmanagerPassword"
                  label="ISP Manager Password"
                  maxLength={4096}
                  reveal={reveal}
                />
                <CheckField<ServerFormValues>
                  name="ispmanagerAcceptSelfSigned"
                  label="Accept self-signed certificate"
                  help="Only for a panel still on its own self-signed certificate; any certificate is then accepted."
                />
              </Tab>
            </QueryTabs>
          </>
        );
      }}
    </FormView>
  );
}
