import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import type { TwoFactorSetup } from '@fleetdesk/contract';
import { CopyButton } from '../../components/copy-button.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { ApiError, errorMessage } from '../../lib/api-error.ts';
import {
  useBeginTwoFactorSetup,
  useDisableTwoFactor,
  useEnableTwoFactor,
  useRenewRecoveryCodes,
  useTwoFactorStatus,
} from './profile-api.ts';

/** Turning TOTP on (QR code, secret, first code, recovery codes shown once), renewing the codes, turning it off. */
export function TwoFactorPanel() {
  const status = useTwoFactorStatus();
  const [codes, setCodes] = useState<string[] | null>(null);
  const [confirming, setConfirming] = useState<'disable' | 'renew' | null>(null);

  if (status.isPending) return <LoadingSpinner />;
  if (status.isError) return <ErrorBox message={errorMessage(status.error)} onRefresh={() => void status.refetch()} />;
  const s = status.data;

  if (codes) return <RecoveryCodesView codes={codes} onDone={() => setCodes(null)} />;

  if (!s.enabled) {
    return (
      <>
        {s.requiredByRole && (
          <Alert variant="warning">
            Your role requires two-factor sign-in. Set it up to continue: until then the console shows nothing else.
          </Alert>
        )}
        <p>
          Two-factor sign-in is <strong>off</strong>. With it on, signing in asks for a code from an authenticator app
          (Google Authenticator, 1Password, Authy, …) after your password.
        </p>
        <SetupFlow onEnabled={setCodes} />
      </>
    );
  }

  return (
    <>
      <p className="mb-1">
        Two-factor sign-in is <strong className="text-success">on</strong> since <DateTime value={s.enabledAt} />.
      </p>
      <p>
        Recovery codes left: <strong data-testid="recovery-codes-left">{s.recoveryCodesLeft}</strong> of 10.
        {s.requiredByRole && ' Your role requires two-factor sign-in, so it cannot be turned off.'}
      </p>
      {confirming ? (
        <ConfirmOwner
          action={confirming}
          onCancel={() => setConfirming(null)}
          onRenewed={(c) => {
            setConfirming(null);
            setCodes(c);
          }}
          onDisabled={() => setConfirming(null)}
        />
      ) : (
        <div className="d-flex flex-wrap gap-2">
          <Button variant="outline-primary" onClick={() => setConfirming('renew')}>
            New recovery codes
          </Button>
          {!s.requiredByRole && (
            <Button variant="outline-danger" onClick={() => setConfirming('disable')}>
              Turn off
            </Button>
          )}
        </div>
      )}
    </>
  );
}

function SetupFlow({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const begin = useBeginTwoFactorSetup();
  const enable = useEnableTwoFactor();
  const dialogs = useDialogs();
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);

  if (!setup) {
    return (
      <Button
        disabled={begin.isPending}
        onClick={() =>
          begin.mutate(undefined, { onSuccess: setSetup, onError: (e) => void dialogs.error(errorMessage(e)) })
        }
      >
        Set up two-factor sign-in
      </Button>
    );
  }
  return (
    <Card className="shadow-sm" style={{ maxWidth: 560 }}>
      <Card.Body>
        <ol className="ps-3 mb-3">
          <li>Scan this QR code with your authenticator app, or type the key below into it.</li>
          <li>Enter the 6-digit code the app shows.</li>
        </ol>
        <div className="d-flex flex-column flex-sm-row gap-3 align-items-sm-center mb-3">
          <img src={setup.qrCode} alt="QR code of the two-factor secret" width={180} height={180} className="border" />
          <div className="text-break">
            <div className="small text-body-secondary">Key</div>
            <code data-testid="two-factor-secret" className="fs-6">
              {setup.secret}
            </code>
            <div className="mt-2">
              <CopyButton text={setup.secret} size="sm" label="Copy key" />
            </div>
          </div>
        </div>
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            setError(null);
            enable.mutate(code.trim(), {
              onSuccess: (r) => onEnabled(r.recoveryCodes),
              onError: (e) =>
                e instanceof ApiError && e.fields?.code ? setError(e.fields.code) : void dialogs.error(errorMessage(e)),
            });
          }}
        >
          <Form.Group controlId="two-factor-code" className="mb-3" style={{ maxWidth: 240 }}>
            <Form.Label>Code</Form.Label>
            <Form.Control
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="\d{6}"
              maxLength={6}
              required
              value={code}
              isInvalid={Boolean(error)}
              onChange={(event) => setCode(event.target.value)}
            />
            <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>
          </Form.Group>
          <SubmitButton pending={enable.isPending}>Turn on</SubmitButton>
        </Form>
      </Card.Body>
    </Card>
  );
}

function RecoveryCodesView({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <Alert variant="success" style={{ maxWidth: 560 }}>
      <Alert.Heading as="h2" className="h5">
        Your recovery codes
      </Alert.Heading>
      <p>Each signs you in once if you lose your phone. Keep them somewhere safe: they are shown only now.</p>
      <ul className="list-unstyled font-monospace row row-cols-2 g-1 mb-3" data-testid="recovery-codes">
        {codes.map((c) => (
          <li key={c} className="col">
            {c}
          </li>
        ))}
      </ul>
      <div className="d-flex gap-2">
        <CopyButton text={codes.join('\n')} label="Copy codes" />
        <Button onClick={onDone}>I have saved them</Button>
      </div>
    </Alert>
  );
}

function ConfirmOwner({
  action,
  onCancel,
  onRenewed,
  onDisabled,
}: {
  action: 'disable' | 'renew';
  onCancel: () => void;
  onRenewed: (codes: string[]) => void;
  onDisabled: () => void;
}) {
  const disable = useDisableTwoFactor();
  const renew = useRenewRecoveryCodes();
  const dialogs = useDialogs();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [fields, setFields] = useState<Record<string, string>>({});
  const pending = disable.isPending || renew.isPending;
  const onError = (e: ApiError) => (e.fields ? setFields(e.fields) : void dialogs.error(errorMessage(e)));
  return (
    <Card className="shadow-sm" style={{ maxWidth: 420 }}>
      <Card.Body>
        <Card.Title as="h2" className="h6">
          {action === 'disable' ? 'Turn two-factor sign-in off' : 'New recovery codes (the old ones stop working)'}
        </Card.Title>
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            setFields({});
            const input = { password, code: code.trim() };
            if (action === 'disable') disable.mutate(input, { onSuccess: onDisabled, onError });
            else renew.mutate(input, { onSuccess: (r) => onRenewed(r.recoveryCodes), onError });
          }}
        >
          <Form.Group controlId="confirm-password" className="mb-2">
            <Form.Label>Password</Form.Label>
            <Form.Control
              type="password"
              autoComplete="current-password"
              required
              value={password}
              isInvalid={Boolean(fields.password)}
              onChange={(event) => setPassword(event.target.value)}
            />
            <Form.Control.Feedback type="invalid">{fields.password}</Form.Control.Feedback>
          </Form.Group>
          <Form.Group controlId="confirm-code" className="mb-3">
            <Form.Label>Two-factor code</Form.Label>
            <Form.Control
              autoComplete="one-time-code"
              required
              maxLength={64}
              value={code}
              isInvalid={Boolean(fields.code)}
              onChange={(event) => setCode(event.target.value)}
            />
            <Form.Control.Feedback type="invalid">{fields.code}</Form.Control.Feedback>
          </Form.Group>
          <div className="d-flex gap-2">
            <SubmitButton pending={pending} variant={action === 'disable' ? 'danger' : 'primary'}>
              {action === 'disable' ? 'Turn off' : 'Make new codes'}
            </SubmitButton>
            <Button variant="secondary" onClick={onCancel} disabled={pending}>
              Cancel
            </Button>
          </div>
        </Form>
      </Card.Body>
    </Card>
  );
}
