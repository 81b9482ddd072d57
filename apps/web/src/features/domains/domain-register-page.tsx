import { useState } from 'react';
import { Link, useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { REGISTRAR_TEXT, type DomainRegistratorContact } from '@fleetdesk/contract';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { PickerField } from '../../components/picker-field.tsx';
import {
  DomainRegistratorContactPicker,
  domainRegistratorContactLabel,
} from '../../components/pickers/domain-registrator-contact-picker.tsx';
import { useForbiddenDialog } from '../../components/use-forbidden-dialog.ts';
import { errorMessage } from '../../lib/api-error.ts';
import { useDomain } from '../cloud-flare/cloud-flare-api.ts';
import { registrarPaths, useRegisterDomain } from '../domain-registrators/registrar-api.ts';
import { domainPaths } from './domains-api.ts';

const YEARS = [1, 2, 3, 4, 5, 10];

/**
 * /domains/{id}/register (spec 2 §2, §5): registers the domain at its registrator with one contact in all four
 * roles. The order is never resent on its own (a resend could charge twice), so a failure shows Namecheap's
 * error and the operator decides.
 */
export function DomainRegisterPage() {
  const { id = '' } = useParams();
  const query = useDomain(id);
  useForbiddenDialog(query.error);
  const register = useRegisterDomain(id);
  const [contact, setContact] = useState<DomainRegistratorContact | null>(null);
  const [years, setYears] = useState(1);
  const [contactError, setContactError] = useState<string>();
  const domain = query.data;

  const submit = () => {
    if (!contact) {
      setContactError(REGISTRAR_TEXT.contactRequired);
      return;
    }
    setContactError(undefined);
    register.mutate({ domainRegistratorContactId: contact._id, years });
  };

  let body;
  if (query.isPending) body = <LoadingSpinner />;
  else if (query.isError) body = <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />;
  else if (!domain!.domainRegistratorId) {
    body = (
      <Alert variant="warning" data-testid="register-no-registrator">
        {REGISTRAR_TEXT.noRegistrator}: {REGISTRAR_TEXT.chooseRegistrator}.{' '}
        <Link className="alert-link" to={registrarPaths.registratorTab(id)}>
          Open the Domain Registrator tab
        </Link>
      </Alert>
    );
  } else {
    const result = register.data;
    body = (
      <>
        <dl className="row mb-3">
          <dt className="col-sm-3">Registrator</dt>
          <dd className="col-sm-9">{domain!.domainRegistrator?.name ?? domain!.domainRegistratorId}</dd>
          <dt className="col-sm-3">Name servers</dt>
          <dd className="col-sm-9">
            {domain!.cloudZoneId ? 'the Cloudflare zone’s name servers' : 'the registrar’s default name servers'}
          </dd>
        </dl>
        <PickerField<DomainRegistratorContact>
          label="Contact"
          required
          value={contact}
          onChange={(c) => {
            setContact(c);
            setContactError(undefined);
          }}
          getLabel={domainRegistratorContactLabel}
          picker={DomainRegistratorContactPicker}
          error={contactError}
          disabled={register.isPending}
        />
        <Form.Group className="mb-3" controlId="register-years" style={{ maxWidth: 200 }}>
          <Form.Label>Years</Form.Label>
          <Form.Select value={years} onChange={(e) => setYears(Number(e.target.value))} disabled={register.isPending}>
            {YEARS.map((y) => (
              <option key={y} value={y}>
                {y}
              </option>
            ))}
          </Form.Select>
        </Form.Group>
        <Button onClick={submit} disabled={register.isPending || Boolean(result?.registered)}>
          {register.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Register
        </Button>
        {register.isError && (
          <Alert variant="danger" className="mt-3" data-testid="register-error">
            {errorMessage(register.error)}
          </Alert>
        )}
        {result && (
          <Alert variant={result.registered ? 'success' : 'warning'} className="mt-3" data-testid="register-result">
            <div className="fw-semibold mb-2">
              {result.registered ? `${result.domainName} is registered` : `${result.domainName} is not registered yet`}
            </div>
            <dl className="row mb-0 small">
              <dt className="col-sm-4">Order id</dt>
              <dd className="col-sm-8">{result.orderId ?? '—'}</dd>
              <dt className="col-sm-4">Charged amount</dt>
              <dd className="col-sm-8">{result.chargedAmount}</dd>
              <dt className="col-sm-4">Transaction id</dt>
              <dd className="col-sm-8">{result.transactionId ?? '—'}</dd>
              <dt className="col-sm-4">Expiration date</dt>
              <dd className="col-sm-8">{result.expirationDate ?? '—'}</dd>
              {result.nameServers && (
                <>
                  <dt className="col-sm-4">Name servers</dt>
                  <dd className="col-sm-8">{result.nameServers.join(', ')}</dd>
                </>
              )}
            </dl>
          </Alert>
        )}
      </>
    );
  }

  return (
    <section style={{ maxWidth: 720 }}>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
        <h1 className="h3 mb-0 me-auto">Register Domain</h1>
        <LinkButton to={domainPaths.edit(id)} variant="outline-secondary">
          Back to domain
        </LinkButton>
      </div>
      {domain && (
        <p className="text-body-secondary mb-3" data-testid="register-domain">
          Domain № {domain.domainNo}: <strong className="text-body">{domain.domainNameUnicode}</strong>
        </p>
      )}
      {body}
    </section>
  );
}
