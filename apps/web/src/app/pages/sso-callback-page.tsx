import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../lib/api-error.ts';
import { exchangeOidcCode } from '../../lib/auth.ts';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';

/** What the API's callback reported, in words; the details are in the audit log. */
const REASONS: Record<string, string> = {
  bad_state: 'This sign-in took too long or was already used. Please try again.',
  groups_overage:
    'Your account at the provider is in more groups than its sign-in can list, so your roles cannot be read. Ask an administrator to have the provider send only the groups given to this application.',
  other_browser: 'This sign-in was started in another browser. Please start it again here.',
  no_user: 'No console user is linked to your account at the provider. Ask an administrator.',
  inactive: 'Your user is deactivated. Ask an administrator.',
  provider_error: 'The provider did not sign you in. Please try again.',
  link_expired: 'This link invitation has expired or was already used. Ask an administrator for a new one.',
  identity_taken:
    'This account at the provider is already linked to another user. Sign in at the provider with the account the invitation is for.',
  username_taken: 'No free username was found for you. Ask an administrator to create your user and link it.',
};
const FAILED = 'Single sign-on failed. Please try again, or ask an administrator to look at the audit log.';

/** Where the provider's callback lands: the one-time code is exchanged for a session, then the console opens. */
export function SsoCallbackPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(() => {
    const reason = params.get('error');
    if (reason) return REASONS[reason] ?? FAILED;
    return params.get('code') ? null : FAILED;
  });
  // The code works once: React's double effects in development must not spend it twice.
  const spent = useRef(false);

  useEffect(() => {
    const code = params.get('code');
    if (!code || spent.current || error) return;
    spent.current = true;
    exchangeOidcCode(code).then(
      (outcome) =>
        // The console's own code is still asked when the provider asserted no MFA (decision 042).
        void (outcome.kind === 'code'
          ? navigate('/login', { replace: true, state: { challenge: outcome.challenge } })
          : navigate(outcome.twoFactorSetupRequired ? '/profile?tab=two-factor' : '/', { replace: true })),
      (err: unknown) => setError(errorMessage(err)),
    );
  }, [params, navigate, error]);

  if (!error) return <LoadingSpinner />;
  // Bootstrap's classes, as on the sign-in page: no react-bootstrap Card, nor Alert with its fade (decision 048).
  return (
    <div className="card mx-auto mt-4 shadow-sm" style={{ maxWidth: 400 }}>
      <div className="card-body p-4">
        <h1 className="h4 mb-3 card-title">Single sign-on</h1>
        <div className="alert alert-danger" role="alert">
          {error}
        </div>
        <Link to="/login">Back to sign-in</Link>
      </div>
    </div>
  );
}
