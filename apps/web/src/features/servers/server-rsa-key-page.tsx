import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { RsaKeyInputSchema, type RsaKeyInfo, type Server } from '@fleetdesk/contract';
import { CopyButton } from '../../components/copy-button.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { ApiError, errorMessage } from '../../lib/api-error.ts';
import { formatYesNo } from '../../lib/format.ts';
import { ServerSubpage } from './server-subpage.tsx';
import { serverPaths, useDeleteRsaKey, useGenerateKey, useRsaKey, useSaveRsaKey, type KeyKind } from './servers-api.ts';

const KEY_KINDS: readonly { value: KeyKind; label: string }[] = [
  { value: 'ed25519', label: 'ed25519' },
  { value: 'rsa4096', label: 'RSA-4096' },
];

function CurrentKey({ server, info }: { server: Server; info: RsaKeyInfo }) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const remove = useDeleteRsaKey(server._id);
  const handleDelete = async () => {
    if (!(await dialogs.confirm('Are you sure you want to delete the RSA Key?', { confirmVariant: 'danger' }))) return;
    try {
      await remove.mutateAsync();
      toasts.success('RSA Key deleted successfully');
    } catch (error) {
      void dialogs.apiError(error);
    }
  };
  return (
    <Card className="mb-3">
      <Card.Header as="h2" className="h6">
        Current key
      </Card.Header>
      <Card.Body>
        <dl className="row mb-0" data-testid="rsa-key-info">
          <dt className="col-sm-3">Key set</dt>
          <dd className="col-sm-9">{formatYesNo(info.rsaKeySet)}</dd>
          {info.rsaKeySet && (
            <>
              <dt className="col-sm-3">Type</dt>
              <dd className="col-sm-9">{info.rsaKeyType ?? '—'}</dd>
              <dt className="col-sm-3">Fingerprint</dt>
              <dd className="col-sm-9">
                <code data-testid="rsa-key-fingerprint">{info.rsaKeyFingerprint ?? '—'}</code>
              </dd>
            </>
          )}
        </dl>
        {info.publicKey && (
          <Form.Group className="mt-3" controlId="public-key">
            <Form.Label>Public key</Form.Label>
            <Form.Control
              as="textarea"
              rows={3}
              readOnly
              value={info.publicKey}
              className="font-monospace small"
              spellCheck={false}
            />
            <div className="d-flex flex-wrap align-items-center gap-2 mt-2">
              <CopyButton text={info.publicKey} size="sm" />
              <Form.Text muted className="mt-0">
                Add this line to ~/.ssh/authorized_keys of {server.username} on the server.
              </Form.Text>
            </div>
          </Form.Group>
        )}
        {!info.rsaKeySet && (
          <p className="text-body-secondary mb-0 mt-2">No key is set: paste a private key or generate a key pair.</p>
        )}
        {info.rsaKeySet && (
          <Button
            variant="outline-danger"
            className="mt-3"
            onClick={() => void handleDelete()}
            disabled={remove.isPending}
          >
            Delete
          </Button>
        )}
      </Card.Body>
    </Card>
  );
}

function SaveKeyForm({ server }: { server: Server }) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const save = useSaveRsaKey(server._id);
  const [rsaKey, setRsaKey] = useState('');
  const [error, setError] = useState<string | undefined>();

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = RsaKeyInputSchema.safeParse({ rsaKey });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'RSA Key is required');
      return;
    }
    setError(undefined);
    try {
      await save.mutateAsync(parsed.data.rsaKey);
      setRsaKey('');
      toasts.success('RSA Key saved successfully');
    } catch (err) {
      if (err instanceof ApiError && err.fields?.rsaKey) setError(err.fields.rsaKey);
      else void dialogs.apiError(err);
    }
  };

  return (
    <Card className="mb-3">
      <Card.Header as="h2" className="h6">
        Save a private key
      </Card.Header>
      <Card.Body>
        <Form noValidate onSubmit={(event) => void handleSubmit(event)}>
          <Form.Group className="mb-3" controlId="rsa-key">
            <Form.Label>RSA Key</Form.Label>
            <Form.Control
              as="textarea"
              rows={6}
              value={rsaKey}
              onChange={(event) => setRsaKey(event.target.value)}
              isInvalid={Boolean(error)}
              disabled={save.isPending}
              className="font-monospace small"
              spellCheck={false}
              autoComplete="off"
              placeholder={'-----BEGIN OPENSSH PRIVATE KEY-----\n…\n-----END OPENSSH PRIVATE KEY-----'}
            />
            {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
            {!error && (
              <Form.Text muted>
                A private key in PEM or OpenSSH format, without a passphrase. It replaces the stored key and is never
                shown again.
              </Form.Text>
            )}
          </Form.Group>
          <SubmitButton pending={save.isPending}>Save</SubmitButton>
        </Form>
      </Card.Body>
    </Card>
  );
}

function GenerateKey({ server, info }: { server: Server; info: RsaKeyInfo }) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const generate = useGenerateKey(server._id);
  const [kind, setKind] = useState<KeyKind>('ed25519');
  const [generated, setGenerated] = useState<RsaKeyInfo | null>(null);

  const handleGenerate = async () => {
    if (
      info.rsaKeySet &&
      !(await dialogs.confirm('A key is already set. Replace it with a new key pair?', { confirmVariant: 'danger' }))
    ) {
      return;
    }
    try {
      setGenerated(await generate.mutateAsync(kind));
      toasts.success('Key pair generated successfully');
    } catch (error) {
      void dialogs.apiError(error);
    }
  };

  return (
    <Card className="mb-3">
      <Card.Header as="h2" className="h6">
        Generate key pair
      </Card.Header>
      <Card.Body>
        <p className="mb-2">
          Creates a new key pair, stores its private half for this server and shows the public line to add to the
          server&apos;s authorized_keys.
        </p>
        <div className="d-flex flex-wrap align-items-center gap-3">
          {KEY_KINDS.map((option) => (
            <Form.Check
              key={option.value}
              inline
              type="radio"
              name="key-kind"
              id={`key-kind-${option.value}`}
              label={option.label}
              checked={kind === option.value}
              onChange={() => setKind(option.value)}
              disabled={generate.isPending}
              className="me-0"
            />
          ))}
          <Button variant="primary" onClick={() => void handleGenerate()} disabled={generate.isPending}>
            {generate.isPending && (
              <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />
            )}
            Generate key pair
          </Button>
        </div>
        {generated && (
          <Alert variant="success" className="mt-3 mb-0" data-testid="generated-key">
            A new {generated.rsaKeyType ?? kind} key is stored. Copy its public key (above) into ~/.ssh/authorized_keys
            of {server.username} on the server.
          </Alert>
        )}
      </Card.Body>
    </Card>
  );
}

function RsaKeyBody({ server }: { server: Server }) {
  const query = useRsaKey(server._id);
  if (query.isPending) return <LoadingSpinner />;
  if (query.isError) return <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />;
  return (
    <>
      <CurrentKey server={server} info={query.data} />
      <SaveKeyForm server={server} />
      <GenerateKey server={server} info={query.data} />
    </>
  );
}

export function ServerRsaKeyPage() {
  const { id = '' } = useParams();
  return (
    <ServerSubpage
      id={id}
      title="Server RSA Key"
      links={
        <LinkButton to={serverPaths.testConnection(id)} variant="outline-primary">
          Test Connection
        </LinkButton>
      }
    >
      {(server) => <RsaKeyBody server={server} />}
    </ServerSubpage>
  );
}
