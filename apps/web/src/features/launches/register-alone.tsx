import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import type { LaunchPlan } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { useRegisterAlone, useRegistrationCheck } from './launches-api.ts';

/**
 * A console domain that is not at our registrator is never bought as the launch's routine step (issue 40). Here
 * it is asked separately: an availability check at Namecheap with the price first, then, only on an explicit
 * click confirmed with that cost, its registration on its own.
 */
export function RegisterAlone({
  domainName,
  alone,
}: {
  domainName: string;
  alone: NonNullable<LaunchPlan['registerAlone']>;
}) {
  const check = useRegistrationCheck();
  const register = useRegisterAlone();
  const dialogs = useDialogs();
  const input = { domainName, domainRegistratorId: alone.domainRegistratorId, years: alone.years };
  const c = check.data;
  const busy = check.isPending || register.isPending;

  const buy = () => {
    if (!c) return;
    void dialogs
      .confirm(`${c.text} Register ${c.domainNameUnicode} now?`, { title: 'Register on its own' })
      .then(
        (ok) =>
          ok &&
          register.mutate(
            { ...input, contactId: alone.contactId, confirmCost: true },
            { onError: (e) => void dialogs.apiError(e) },
          ),
      );
  };

  if (register.data)
    return (
      <Alert variant="success" className="small mt-2 mb-0 text-break">
        Registered {register.data.domainName} (order {register.data.orderId}, charged {register.data.chargedAmount}).
      </Alert>
    );
  return (
    <div className="mt-2" data-testid="register-alone">
      {!c && (
        <Button size="sm" variant="outline-warning" disabled={busy} onClick={() => check.mutate(input)}>
          {check.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Check availability and price at Namecheap
        </Button>
      )}
      {check.error && <div className="small text-danger text-break">{errorMessage(check.error)}</div>}
      {c && (
        <>
          <div className={`small text-break ${c.available ? 'text-body' : 'text-danger'}`} role="status">
            {c.text}
          </div>
          {c.available && !alone.contactId && (
            <div className="small text-body-secondary">Choose the registrant contact above to register it.</div>
          )}
          {c.available && (
            <Button size="sm" variant="warning" className="mt-1" disabled={busy || !alone.contactId} onClick={buy}>
              Register on its own{c.cost ? ` (${c.cost.amount} ${c.cost.currency})` : ''}
            </Button>
          )}
        </>
      )}
    </div>
  );
}
