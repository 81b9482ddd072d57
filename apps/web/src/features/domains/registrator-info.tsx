import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import { useFormContext, useWatch } from 'react-hook-form';
import { REGISTRAR_TEXT, type Domain } from '@fleetdesk/contract';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { registrarPaths, useRegistratorDomainInfo } from '../domain-registrators/registrar-api.ts';
import type { DomainFormValues } from './domains-api.ts';

const STATUS_VARIANT: Record<string, string> = { ok: 'success', locked: 'warning', expired: 'danger' };

/** The typed name, settled: the check does not run on every keystroke. */
function useSettled(value: string, ms = 600) {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    // The first name (the loaded domain's) counts at once; later edits once typing pauses.
    const t = setTimeout(() => setSettled(value), settled ? ms : 0);
    return () => clearTimeout(t);
  }, [value, ms, settled]);
  return settled;
}

/**
 * The Domain Registrator tab's live block (spec 2 §3, §5, §8): the registrar's status and expiration date for
 * the domain name and registrator in the form. It needs both, and warns otherwise.
 */
export function RegistratorInfo({ item }: { item?: Domain }) {
  const { control, setValue, getFieldState } = useFormContext<DomainFormValues>();
  const typedName = useWatch({ control, name: 'domainName' }) ?? '';
  const registratorId = useWatch({ control, name: 'domainRegistratorId' }) ?? null;
  const domainName = useSettled(typedName.trim());
  // Every tab is mounted with the form; the registrar is asked only while this one is open (it has a rate).
  const [searchParams] = useSearchParams();
  const open = searchParams.get('tab') === 'domain-registrator';
  const query = useRegistratorDomainInfo(registratorId, domainName, open);
  const data = query.data;

  // The server stored the date on the saved domain; the form shows it too, unless the operator is editing it.
  useEffect(() => {
    if (!data?.success || !data.data.expirationDate || !item) return;
    if (
      registratorId !== item.domainRegistratorId ||
      domainName.toLowerCase() !== item.domainNameUnicode.toLowerCase()
    ) {
      return;
    }
    if (getFieldState('domainRegistratorExpirationDate').isDirty) return;
    setValue('domainRegistratorExpirationDate', data.data.expirationDate);
  }, [data, item, registratorId, domainName, getFieldState, setValue]);

  let body;
  if (!typedName.trim()) body = <Alert variant="warning">{REGISTRAR_TEXT.noDomainName}</Alert>;
  else if (!registratorId) body = <Alert variant="warning">{REGISTRAR_TEXT.noRegistrator}</Alert>;
  else if (query.isPending) body = <LoadingSpinner />;
  else if (query.isError) {
    body = (
      <Alert variant="danger" data-testid="registrator-info-error">
        <strong>Error</strong>{' '}
        <Button variant="link" className="alert-link p-0 align-baseline" onClick={() => void query.refetch()}>
          Retry
        </Button>
        <div className="small mt-1">{errorMessage(query.error)}</div>
      </Alert>
    );
  } else if (!data!.success) {
    body = (
      <Alert variant="warning" data-testid="registrator-info-unsuccessful">
        <div className="mb-1">{data!.message}</div>
        {item && (
          <Link className="alert-link me-3" to={registrarPaths.register(item._id)}>
            Register
          </Link>
        )}
        <Button variant="link" className="alert-link p-0 align-baseline" onClick={() => void query.refetch()}>
          Refresh
        </Button>
      </Alert>
    );
  } else {
    const status = data!.data.status;
    body = (
      <>
        <dl className="row mb-2" data-testid="registrator-info">
          <dt className="col-sm-4">Status</dt>
          <dd className="col-sm-8">
            {status ? <Badge bg={STATUS_VARIANT[status.toLowerCase()] ?? 'secondary'}>{status}</Badge> : '—'}
          </dd>
          <dt className="col-sm-4">Expiration Date</dt>
          <dd className="col-sm-8">{data!.data.expirationDate ?? '—'}</dd>
        </dl>
        <RefreshButton onRefresh={() => void query.refetch()} pending={query.isFetching} />
      </>
    );
  }

  return (
    <section className="border rounded p-3 mb-3" aria-label="Registrator domain info">
      <h2 className="h6 mb-3">Registrator domain info</h2>
      {body}
    </section>
  );
}
