import { useEffect, useState } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import Button from 'react-bootstrap/Button';
import type { OidcConfig } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { ApiError, errorMessage } from '../../lib/api-error.ts';
import { OIDC_START_PATH, fetchOidcConfig, login, loginWithCode, type LoginOutcome } from '../../lib/auth.ts';
import { useToken } from '../../lib/token.ts';

/** Where a signed-in user goes: the two-factor setup when a role requires it, else the starting page. */
const afterSignIn = (outcome: LoginOutcome) =>
  outcome.kind === 'signed-in' && outcome.twoFactorSetupRequired ? '/profile?tab=two-factor' : '/';

export function LoginPage() {
  const token = useToken();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  // A single sign-on that still needs the console's code arrives with its challenge.
  const location = useLocation();
  const [challenge, setChallenge] = useState<string | null>(() => {
    const state = location.state as { challenge?: unknown } | null;
    return typeof state?.challenge === 'string' ? state.challenge : null;
  });
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState<OidcConfig | null>(null);
  // With password sign-in off, the form stays hidden until the break-glass administrator asks for it.
  const [showPassword, setShowPassword] = useState(false);
  useEffect(() => {
    const ctrl = new AbortController();
    // Without an answer the password form is shown, as before single sign-on.
    fetchOidcConfig(ctrl.signal).then(setSso, () => undefined);
    return () => ctrl.abort();
  }, []);
  const passwordForm = !sso || sso.passwordSignIn || showPassword;
  // Two fields checked by the browser (required) and by the server's schema: the login page stays free of zod
  // and the form library, the largest part of a first visit after React (decision 048).
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ username?: string; password?: string }>({});
  const [isSubmitting, setSubmitting] = useState(false);

  const handlePassword = async () => {
    setErrors({});
    setSubmitting(true);
    let outcome: LoginOutcome;
    try {
      outcome = await login({ username, password });
    } catch (error) {
      setSubmitting(false);
      // A field the server's schema refused (a blank username, a NUL) shows under its field; bad credentials
      // answer 401 here: the server's message, not a redirect.
      const fields = error instanceof ApiError ? error.fields : undefined;
      if (fields?.username || fields?.password) setErrors({ username: fields.username, password: fields.password });
      else void dialogs.error(errorMessage(error));
      return;
    }
    if (outcome.kind === 'code') {
      setSubmitting(false);
      setChallenge(outcome.challenge);
      return;
    }
    // Still submitting while navigating: the signed-in redirect below must not race the two-factor set-up.
    try {
      await navigate(afterSignIn(outcome), { replace: true });
    } finally {
      setSubmitting(false);
    }
  };

  const handleCode = async (code: string) => {
    if (!challenge) return;
    setBusy(true);
    try {
      const outcome = await loginWithCode({ challenge, code });
      await navigate(afterSignIn(outcome), { replace: true });
    } catch (error) {
      // Too many wrong codes, or too long: the password is asked again.
      if (error instanceof ApiError && error.code === 'challenge_expired') setChallenge(null);
      void dialogs.error(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };

  if (token && !isSubmitting && !busy) return <Navigate to="/" replace />;

  // Bootstrap's card and form classes rather than react-bootstrap's Card and Form (their theme context and
  // prop-types), the same markup: the sign-in page is the lightest first visit (decision 048).
  return (
    <div className="card mx-auto mt-4 shadow-sm" style={{ maxWidth: 400 }}>
      <div className="card-body p-4">
        <h1 className="h4 mb-3 card-title">Login</h1>
        {challenge ? (
          <CodeStep
            busy={busy}
            onSubmit={(code) => void handleCode(code)}
            onBack={() => {
              setChallenge(null);
              setPassword('');
            }}
          />
        ) : (
          <>
            {sso?.enabled && (
              <Button href={OIDC_START_PATH} variant="primary" className="w-100 mb-3">
                Sign in with {sso.providerName}
              </Button>
            )}
            {sso?.enabled && !passwordForm && (
              <Button variant="link" size="sm" className="w-100" onClick={() => setShowPassword(true)}>
                Administrator sign-in with a password
              </Button>
            )}
            {passwordForm && (
              // No noValidate: the browser's own required check comes first.
              <form
                onSubmit={(event) => {
                  event.preventDefault();
                  if (!isSubmitting) void handlePassword();
                }}
              >
                <div className="mb-3">
                  <label className="form-label" htmlFor="login-username">
                    Username
                  </label>
                  <input
                    id="login-username"
                    className={fieldClass(errors.username)}
                    autoComplete="username"
                    required
                    autoFocus
                    maxLength={200}
                    value={username}
                    onChange={(event) => setUsername(event.target.value)}
                  />
                  <div className="invalid-feedback">{errors.username}</div>
                </div>
                <div className="mb-4">
                  <label className="form-label" htmlFor="login-password">
                    Password
                  </label>
                  <input
                    id="login-password"
                    type="password"
                    className={fieldClass(errors.password)}
                    autoComplete="current-password"
                    required
                    maxLength={1024}
                    value={password}
                    onChange={(event) => setPassword(event.target.value)}
                  />
                  <div className="invalid-feedback">{errors.password}</div>
                </div>
                <SubmitButton pending={isSubmitting} className="w-100">
                  Login
                </SubmitButton>
              </form>
            )}
          </>
        )}
      </div>
    </div>
  );
}

/** A text field's classes; a field the server refused shows its message below it. */
const fieldClass = (error: string | undefined) => (error ? 'form-control is-invalid' : 'form-control');

function CodeStep({ busy, onSubmit, onBack }: { busy: boolean; onSubmit: (code: string) => void; onBack: () => void }) {
  const [code, setCode] = useState('');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(code.trim());
      }}
    >
      <div className="mb-4">
        <label className="form-label" htmlFor="login-code">
          Two-factor code
        </label>
        <input
          id="login-code"
          className="form-control"
          autoComplete="one-time-code"
          required
          autoFocus
          maxLength={64}
          value={code}
          onChange={(event) => setCode(event.target.value)}
        />
        <small className="form-text text-muted">
          The 6-digit code from your authenticator app, or one of your recovery codes.
        </small>
      </div>
      <SubmitButton pending={busy} className="w-100 mb-2">
        Verify
      </SubmitButton>
      <Button variant="link" className="w-100" onClick={onBack} disabled={busy}>
        Back
      </Button>
    </form>
  );
}
