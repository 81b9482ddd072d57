import { useState } from 'react';
import { Link, useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ProgressBar from 'react-bootstrap/ProgressBar';
import Table from 'react-bootstrap/Table';
import { LAUNCH_ROW_STATUSES, confirmQuestion, stateVariant, type LaunchRowStatus } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { Pager } from '../../components/pager.tsx';
import { SearchBox } from '../../components/search-box.tsx';
import {
  launchPath,
  useLaunchBatch,
  useLaunchBatchRows,
  useLaunchBatchVerb,
  type LaunchBatchVerb,
} from './launches-api.ts';
import { ProviderReason } from '../../components/provider-reason.tsx';

const ROW_LABEL: Record<LaunchRowStatus, string> = {
  pending: 'Waiting',
  blocked: 'Blocked',
  running: 'Launching',
  needs_confirmation: 'Waits for confirmation',
  done: 'Live',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
const ROW_VARIANT: Record<LaunchRowStatus, string> = {
  pending: 'secondary',
  blocked: 'danger',
  running: 'primary',
  needs_confirmation: 'warning',
  done: 'success',
  failed: 'danger',
  cancelled: 'dark',
};

/** /launches/batches/{id}: the batch's names with their plan or launch, and its verbs. */
const rowTone = (status: string) => (status === 'blocked' || status === 'failed' ? 'text-danger' : '');

export function LaunchBatchPage() {
  const { id = '' } = useParams();
  const batch = useLaunchBatch(id);
  const verb = useLaunchBatchVerb(id);
  const dialogs = useDialogs();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  const version = batch.data ? `${batch.data.state}:${JSON.stringify(batch.data.counts)}` : '';
  const rows = useLaunchBatchRows(id, { page, search: search || undefined, status: status || undefined }, version);
  if (batch.isPending) return <LoadingSpinner />;
  if (batch.isError) return <ErrorBox message={batch.error.message} onRefresh={() => void batch.refetch()} />;
  const b = batch.data;
  const c = b.counts;
  // A launch waiting for its confirmation is not finished: the bar never reads full over it.
  const finished = c.done + c.failed + c.cancelled + c.blocked;
  const act = (v: LaunchBatchVerb) => verb.mutate(v, { onError: (e) => void dialogs.apiError(e) });
  const confirmThen = (v: LaunchBatchVerb, message: string, title: string) =>
    void dialogs.confirm(message, { title }).then((ok) => ok && act(v));
  return (
    <section>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <h1 className="h3 mb-0">Launch batch #{b.batchNo}</h1>
        {/* The API's words (outcomes.ts): "Waiting for confirmation (4)", never green over a waiting or failed row. */}
        <Badge bg={b.state === 'paused' ? 'warning' : stateVariant(b.state)}>{b.stateText}</Badge>
        <div className="ms-auto d-flex flex-wrap gap-2">
          {b.confirmation && b.state !== 'cancelled' && (
            <Button
              variant="warning"
              disabled={verb.isPending}
              onClick={() => confirmThen('confirm-all', confirmQuestion(b.confirmation!.text), 'Confirm all')}
            >
              Confirm all ({b.confirmation.names})
            </Button>
          )}
          {b.state === 'planned' && (
            <Button
              disabled={verb.isPending || b.total === c.blocked}
              onClick={() =>
                confirmThen(
                  'run',
                  `Launch ${b.total - c.blocked} of ${b.total} names? Blocked names are left out.`,
                  'Run the batch',
                )
              }
            >
              Run
            </Button>
          )}
          {b.state === 'running' && (
            <Button variant="outline-warning" disabled={verb.isPending} onClick={() => act('pause')}>
              Pause
            </Button>
          )}
          {b.state === 'paused' && (
            <Button disabled={verb.isPending} onClick={() => act('resume')}>
              Resume
            </Button>
          )}
          {c.failed > 0 && b.state !== 'cancelled' && b.state !== 'planning' && (
            <Button variant="outline-danger" disabled={verb.isPending} onClick={() => act('retry-failed')}>
              Retry failed ({c.failed})
            </Button>
          )}
          {['planning', 'planned', 'running', 'paused', 'waiting_for_confirmation'].includes(b.state) && (
            <Button
              variant="outline-secondary"
              disabled={verb.isPending}
              onClick={() =>
                confirmThen('cancel', 'Cancel the batch? Launches under way stop; done stages stay done.', 'Cancel')
              }
            >
              Cancel batch
            </Button>
          )}
        </div>
      </div>
      <ProgressBar
        now={b.total ? Math.round((finished / b.total) * 100) : 0}
        label={`${finished} of ${b.total}`}
        animated={b.state === 'running' || b.state === 'planning'}
        className="mb-2"
        aria-label={`${finished} of ${b.total} names finished`}
      />
      <p className="small text-body-secondary">
        Created <DateTime value={b.createdAt} /> by {b.createdBy ?? 'someone'} · {c.done} live, {c.running} launching,{' '}
        {c.pending} waiting, {c.blocked} blocked, {c.failed} failed
        {c.needs_confirmation ? `, ${c.needs_confirmation} waiting for confirmation` : ''}
      </p>
      {b.confirmation && b.state !== 'cancelled' && (
        // What Confirm all buys and changes, with the registrations' total at Namecheap's price, before the click.
        <Alert variant="warning" className="small text-break" data-testid="batch-confirmation">
          {b.confirmation.text}
        </Alert>
      )}
      {b.error && <Alert variant="danger">{b.error}</Alert>}
      <section aria-label="Names of the batch">
        <div className="d-flex flex-wrap gap-2 mb-2">
          <SearchBox
            value={search}
            onSearch={(v) => {
              setSearch(v);
              setPage(1);
            }}
            placeholder="Search names"
          />
          <Form.Select
            aria-label="Status"
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value);
              setPage(1);
            }}
            style={{ maxWidth: '14rem' }}
          >
            <option value="">Every status</option>
            {LAUNCH_ROW_STATUSES.map((s) => (
              <option key={s} value={s}>
                {ROW_LABEL[s]}
              </option>
            ))}
          </Form.Select>
        </div>
        <Table responsive size="sm" className="align-middle">
          <thead>
            <tr>
              <th className="d-none d-sm-table-cell" style={{ width: '4rem' }}>
                №
              </th>
              <th>Name</th>
              <th>Status</th>
              <th className="d-none d-sm-table-cell">Plan or outcome</th>
            </tr>
          </thead>
          <tbody>
            {rows.data?.items.map((r) => (
              <tr key={r.seq}>
                <td className="d-none d-sm-table-cell">{r.seq}</td>
                <td className="text-break">
                  {r.launchId ? <Link to={launchPath(r.launchId)}>{r.domainNameUnicode}</Link> : r.domainNameUnicode}
                  {/* On a phone the plan or outcome reads under the name: three columns leave the name no room. */}
                  <ProviderReason text={r.message} className={`d-sm-none small ${rowTone(r.status)}`} />
                </td>
                <td>
                  <Badge bg={ROW_VARIANT[r.status]}>{ROW_LABEL[r.status]}</Badge>
                  {r.progress && r.status === 'running' && (
                    <small className="ms-2 text-body-secondary">
                      {r.progress.done}/{r.progress.total}
                    </small>
                  )}
                </td>
                <td className={`d-none d-sm-table-cell small text-break ${rowTone(r.status)}`}>
                  <ProviderReason text={r.message} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
        {rows.data && <Pager page={page} itemsCount={rows.data.itemsCount} onPageChange={setPage} />}
      </section>
    </section>
  );
}
