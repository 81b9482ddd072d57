import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import {
  API_TOKEN_EXPIRY_DAYS,
  API_TOKEN_STATUS_LABELS,
  RULE_LABELS,
  type ApiToken,
  type ApiTokenCreated,
  type Rule,
} from '@fleetdesk/contract';
import { CopyButton } from '../../components/copy-button.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { ListTable, type Column } from '../../components/list-table.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { API_PREFIX } from '../../lib/api-client.ts';
import { ApiError, errorMessage } from '../../lib/api-error.ts';
import { useApiTokenOptions, useApiTokens, useCreateApiToken, useRevokeApiToken } from './profile-api.ts';
import { StatusBadge } from '../../components/status-badge.tsx';

const ruleList = (rules: readonly string[]) =>
  rules.map((r) => RULE_LABELS[r as Rule] ?? r).join(', ') || 'none (its owner lost them)';

/** Personal API tokens: made with a subset of one's own rules, shown once, listed with their last use. */
export function TokensPanel() {
  const tokens = useApiTokens();
  const revoke = useRevokeApiToken();
  const dialogs = useDialogs();
  const [created, setCreated] = useState<ApiTokenCreated | null>(null);

  const handleRevoke = async (t: ApiToken) => {
    const ok = await dialogs.confirm(`Revoke the token "${t.name}"? Scripts using it stop working at once.`, {
      confirmLabel: 'Revoke',
      confirmVariant: 'danger',
    });
    if (ok) revoke.mutate(t._id, { onError: (e) => void dialogs.apiError(e) });
  };

  const columns: Column<ApiToken>[] = [
    { header: 'Name', render: (t) => t.name, primary: true },
    {
      header: 'Rules',
      render: (t) => <span title={`Chosen: ${ruleList(t.rules)}`}>{ruleList(t.effectiveRules)}</span>,
    },
    { header: 'Created', render: (t) => <DateTime value={t.createdAt} /> },
    { header: 'Expires', render: (t) => (t.expiresAt ? <DateTime value={t.expiresAt} /> : 'Never') },
    { header: 'Last Used', render: (t) => (t.lastUsedAt ? <DateTime value={t.lastUsedAt} /> : 'Never') },
    { header: 'Address', render: (t) => t.lastUsedIp ?? '—' },
    {
      header: 'Status',
      render: (t) => <StatusBadge status={t.status} label={API_TOKEN_STATUS_LABELS[t.status]} />,
    },
    {
      header: '',
      key: 'actions',
      render: (t) => (
        <Button size="sm" variant="outline-danger" onClick={() => void handleRevoke(t)}>
          Revoke
        </Button>
      ),
    },
  ];

  return (
    <>
      <p>
        A token lets a script call the API as you, with the rules you choose from your own (never more, and it loses
        what you lose). It cannot manage tokens, sessions or two-factor, change users or roles, or reveal stored
        secrets.
      </p>
      {created ? (
        <CreatedToken created={created} onDone={() => setCreated(null)} />
      ) : (
        <NewTokenForm onCreated={setCreated} />
      )}
      <h2 className="h5 mt-4">Your tokens</h2>
      {tokens.isPending ? (
        <LoadingSpinner />
      ) : tokens.isError ? (
        <ErrorBox message={errorMessage(tokens.error)} onRefresh={() => void tokens.refetch()} />
      ) : (
        <ListTable items={tokens.data} columns={columns} page={1} label="API tokens" emptyText="No tokens yet" />
      )}
    </>
  );
}

function NewTokenForm({ onCreated }: { onCreated: (c: ApiTokenCreated) => void }) {
  const options = useApiTokenOptions();
  const create = useCreateApiToken();
  const dialogs = useDialogs();
  const [name, setName] = useState('');
  const [days, setDays] = useState<string>('30');
  const [rules, setRules] = useState<string[]>([]);
  const [fields, setFields] = useState<Record<string, string>>({});

  if (options.isPending) return <LoadingSpinner />;
  if (options.isError)
    return <ErrorBox message={errorMessage(options.error)} onRefresh={() => void options.refetch()} />;
  const { rules: available, noExpiryAllowed } = options.data;

  return (
    <Card className="shadow-sm" style={{ maxWidth: 720 }}>
      <Card.Body>
        <Card.Title as="h2" className="h5">
          New token
        </Card.Title>
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            setFields({});
            create.mutate(
              { name, rules: rules as Rule[], expiresInDays: days === 'never' ? null : Number(days) },
              {
                onSuccess: (c) => {
                  setName('');
                  setRules([]);
                  onCreated(c);
                },
                onError: (e) =>
                  e instanceof ApiError && e.fields ? setFields(e.fields) : void dialogs.error(errorMessage(e)),
              },
            );
          }}
        >
          <div className="row g-3 mb-3">
            <Form.Group className="col-sm-7" controlId="token-name">
              <Form.Label>Name</Form.Label>
              <Form.Control
                required
                maxLength={100}
                placeholder="e.g. nightly DNS sync"
                value={name}
                isInvalid={Boolean(fields.name)}
                onChange={(event) => setName(event.target.value)}
              />
              <Form.Control.Feedback type="invalid">{fields.name}</Form.Control.Feedback>
            </Form.Group>
            <Form.Group className="col-sm-5" controlId="token-expiry">
              <Form.Label>Expires</Form.Label>
              <Form.Select
                value={days}
                isInvalid={Boolean(fields.expiresInDays)}
                onChange={(event) => setDays(event.target.value)}
              >
                {API_TOKEN_EXPIRY_DAYS.map((d) => (
                  <option key={d} value={String(d)}>
                    in {d} days
                  </option>
                ))}
                {noExpiryAllowed && <option value="never">never</option>}
              </Form.Select>
              <Form.Control.Feedback type="invalid">{fields.expiresInDays}</Form.Control.Feedback>
            </Form.Group>
          </div>
          <fieldset className="mb-3">
            <legend className="form-label fs-6">Rules</legend>
            <div className="row row-cols-1 row-cols-sm-2 row-cols-lg-3">
              {available.map((rule) => (
                <div className="col" key={rule}>
                  <Form.Check
                    type="switch"
                    id={`token-rule-${rule}`}
                    label={RULE_LABELS[rule as Rule] ?? rule}
                    title={rule}
                    checked={rules.includes(rule)}
                    onChange={(event) =>
                      setRules((held) =>
                        event.target.checked
                          ? available.filter((r) => r === rule || held.includes(r))
                          : held.filter((r) => r !== rule),
                      )
                    }
                  />
                </div>
              ))}
            </div>
            {fields.rules && <div className="invalid-feedback d-block">{fields.rules}</div>}
            {!available.length && <Form.Text muted>You hold no rules, so a token could do nothing.</Form.Text>}
          </fieldset>
          <SubmitButton pending={create.isPending} disabled={!available.length}>
            Create token
          </SubmitButton>
        </Form>
      </Card.Body>
    </Card>
  );
}

function CreatedToken({ created, onDone }: { created: ApiTokenCreated; onDone: () => void }) {
  const origin = `${window.location.origin}${API_PREFIX}`;
  const curl = `curl -H "Authorization: Bearer ${created.token}" ${origin}/api/domains`;
  return (
    <Alert variant="success" style={{ maxWidth: 720 }}>
      <Alert.Heading as="h2" className="h5">
        Token “{created.apiToken.name}” created
      </Alert.Heading>
      <p className="mb-2">Copy it now: it is not shown again.</p>
      <div className="d-flex flex-wrap gap-2 align-items-center mb-2">
        <code className="text-break" data-testid="new-api-token">
          {created.token}
        </code>
        <CopyButton text={created.token} size="sm" label="Copy token" />
      </div>
      <p className="small mb-1">Use it as:</p>
      <pre className="small bg-body p-2 rounded text-wrap text-break mb-3">{curl}</pre>
      <Button onClick={onDone}>Done</Button>
    </Alert>
  );
}
