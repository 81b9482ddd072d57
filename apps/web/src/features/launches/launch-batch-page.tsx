import { Link, useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import ProgressBar from 'react-bootstrap/ProgressBar';
import { LAUNCH_ROW_STATUSES, confirmQuestion, type LaunchBatchRow, type LaunchRowStatus } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { DateTime } from '../../components/date-time.tsx';
import {
  launchPath,
  useLaunchBatch,
  useLaunchBatchRows,
  useLaunchBatchVerb,
  type LaunchBatchVerb,
} from './launches-api.ts';
import { ProviderReason } from '../../components/provider-reason.tsx';
import { PlanItems, type PlanColumn } from '../plans/plan-items.tsx';
import { PlanPage, PlanStateBadge } from '../plans/plan-page.tsx';

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

const rowTone = (status: string) => (status === 'blocked' || status === 'failed' ? 'text-danger' : '');

/** A batch's names: number, name (its launch), status with the launch's progress, the plan or outcome. */
const ROW_COLUMNS: PlanColumn<LaunchBatchRow>[] = [
  {
    header: '№',
    headerClassName: 'd-none d-sm-table-cell',
    className: 'd-none d-sm-table-cell',
    cell: (r) => r.seq,
  },
  {
    header: 'Name',
    className: 'text-break',
    cell: (r) => (
      <>
        {r.launchId ? <Link to={launchPath(r.launchId)}>{r.domainNameUnicode}</Link> : r.domainNameUnicode}
        {/* On a phone the plan or outcome reads under the name: three columns leave the name no room. */}
        <ProviderReason text={r.message} className={`d-sm-none small ${rowTone(r.status)}`} />
      </>
    ),
  },
  {
    header: 'Status',
    cell: (r) => (
      <>
        <Badge bg={ROW_VARIANT[r.status]}>{ROW_LABEL[r.status]}</Badge>
        {r.progress && r.status === 'running' && (
          <small className="ms-2 text-body-secondary">
            {r.progress.done}/{r.progress.total}
          </small>
        )}
      </>
    ),
  },
  {
    header: 'Plan or outcome',
    headerClassName: 'd-none d-sm-table-cell',
    className: 'd-none d-sm-table-cell small text-break',
    cell: (r) => <ProviderReason text={r.message} className={rowTone(r.status) || undefined} />,
  },
];

/** /launches/batches/{id}: the batch's names with their plan or launch, and its verbs. */

export function LaunchBatchPage() {
  const { id = '' } = useParams();
  const batch = useLaunchBatch(id);
  const verb = useLaunchBatchVerb(id);
  const dialogs = useDialogs();
  const version = batch.data ? `${batch.data.state}:${JSON.stringify(batch.data.counts)}` : '';
  const { state: rowsState, query: rows } = useLaunchBatchRows(id, version);
  const act = (v: LaunchBatchVerb) => verb.mutate(v, { onError: (e) => void dialogs.apiError(e) });
  const confirmThen = (v: LaunchBatchVerb, message: string, title: string) =>
    void dialogs.confirm(message, { title }).then((ok) => ok && act(v));
  return (
    <PlanPage
      query={batch}
      layout="toolbar"
      errorMessage={(error) => error.message}
      title={(b) => <>Launch batch #{b.batchNo}</>}
      // The API's words (outcomes.ts): "Waiting for confirmation (4)", never green over a waiting or failed row.
      badge={(b) => <PlanStateBadge plan={b} plain />}
      buttons={(b) => {
        const c = b.counts;
        return (
          <>
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
          </>
        );
      }}
      progress={(b) => {
        // A launch waiting for its confirmation is not finished: the bar never reads full over it.
        const finished = b.counts.done + b.counts.failed + b.counts.cancelled + b.counts.blocked;
        return (
          <ProgressBar
            now={b.total ? Math.round((finished / b.total) * 100) : 0}
            label={`${finished} of ${b.total}`}
            animated={b.state === 'running' || b.state === 'planning'}
            className="mb-2"
            aria-label={`${finished} of ${b.total} names finished`}
          />
        );
      }}
      subtitle={(b) => {
        const c = b.counts;
        return (
          <>
            Created <DateTime value={b.createdAt} /> by {b.createdBy ?? 'someone'} · {c.done} live, {c.running}{' '}
            launching, {c.pending} waiting, {c.blocked} blocked, {c.failed} failed
            {c.needs_confirmation ? `, ${c.needs_confirmation} waiting for confirmation` : ''}
          </>
        );
      }}
      notes={(b) =>
        b.confirmation &&
        b.state !== 'cancelled' && (
          // What Confirm all buys and changes, with the registrations' total at Namecheap's price, before the click.
          <Alert variant="warning" className="small text-break" data-testid="batch-confirmation">
            {b.confirmation.text}
          </Alert>
        )
      }
      items={() => (
        <PlanItems
          label="Names of the batch"
          state={rowsState}
          query={rows}
          placeholder="Search names"
          filter={{
            label: 'Status',
            every: 'Every status',
            options: LAUNCH_ROW_STATUSES.map((s) => [s, ROW_LABEL[s]] as const),
            style: { maxWidth: '14rem' },
          }}
          columns={ROW_COLUMNS}
          empty="No names found"
          table={{ size: 'sm', hover: false }}
        />
      )}
    />
  );
}
