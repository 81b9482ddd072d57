import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import type { Proxy } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { ProxyCheckStatus } from './proxy-check-status.tsx';
import { useCheckProxy } from './proxies-api.ts';

/** The edit page's proxy check: the last recorded outcome and a Check Proxy button (checks the saved proxy). */
export function ProxyCheckPanel({ proxy }: { proxy: Proxy }) {
  const dialogs = useDialogs();
  const check = useCheckProxy();
  const handleCheck = () => {
    check.mutate(proxy._id, { onError: (error) => void dialogs.apiError(error) });
  };
  const result = check.data;
  return (
    <fieldset className="border rounded p-3 mb-3">
      <legend className="float-none w-auto fs-6 px-2 mb-0">Proxy check</legend>
      <dl className="row mb-2">
        <dt className="col-sm-3">Status</dt>
        <dd className="col-sm-9" data-testid="proxy-check-status">
          <ProxyCheckStatus proxy={proxy} />
        </dd>
        <dt className="col-sm-3">Checked</dt>
        <dd className="col-sm-9">{formatDateTime(proxy.checkedAt)}</dd>
        {proxy.checkError && (
          <>
            <dt className="col-sm-3">Error</dt>
            <dd className="col-sm-9 text-danger">{proxy.checkError}</dd>
          </>
        )}
      </dl>
      {result && (
        <Alert variant={result.ok ? 'success' : 'danger'} className="py-2">
          {result.ok ? `The proxy works (${result.latencyMs ?? '?'} ms).` : result.error || 'The check failed'}
        </Alert>
      )}
      <Button type="button" variant="outline-primary" onClick={handleCheck} disabled={check.isPending}>
        {check.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
        Check Proxy
      </Button>
      <div className="form-text">Checks the saved settings: save your changes first.</div>
    </fieldset>
  );
}
