import { Link, useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import ProgressBar from 'react-bootstrap/ProgressBar';
import {
  LAUNCH_STAGE_STATE_LABELS,
  LAUNCH_STATE_LABELS,
  type Launch,
  type LaunchStage,
  type LaunchStageState,
  confirmQuestion,
} from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { useLaunch, useLaunchVerb } from './launches-api.ts';
import { ProviderReason } from '../../components/provider-reason.tsx';

export const STATE_VARIANT: Record<Launch['state'], string> = {
  queued: 'secondary',
  running: 'primary',
  waiting: 'info',
  needs_confirmation: 'warning',
  completed: 'success',
  failed: 'danger',
  cancelled: 'dark',
};
const STAGE_VARIANT: Record<LaunchStageState, string> = {
  pending: 'secondary',
  running: 'primary',
  waiting: 'info',
  needs_confirmation: 'warning',
  done: 'success',
  already_done: 'success',
  skipped: 'light',
  failed: 'danger',
};

export function LaunchStateBadge({ state }: { state: Launch['state'] }) {
  return <Badge bg={STATE_VARIANT[state]}>{LAUNCH_STATE_LABELS[state]}</Badge>;
}

/** A link the launch made: console pages inside the app, the site's own addresses outside. */
function StageLink({ href, label }: { href: string; label: string }) {
  return href.startsWith('/') ? (
    <Link to={href}>{label}</Link>
  ) : (
    <a href={href} target="_blank" rel="noreferrer">
      {label}
    </a>
  );
}

function Stage({
  s,
  launch,
  busy,
  onRetry,
  onConfirm,
}: {
  s: LaunchStage;
  launch: Launch;
  busy: boolean;
  onRetry: () => void;
  onConfirm: () => void;
}) {
  const finished = s.state === 'done' || s.state === 'already_done';
  return (
    <li
      className="fd-timeline-item pb-3"
      data-testid={`stage-${s.key}`}
      aria-label={`${s.label}: ${LAUNCH_STAGE_STATE_LABELS[s.state]}`}
    >
      <span
        className={`fd-timeline-dot bg-${STAGE_VARIANT[s.state] === 'light' ? 'secondary-subtle' : STAGE_VARIANT[s.state]}`}
        aria-hidden="true"
      />
      <div className="d-flex flex-wrap align-items-baseline gap-2">
        <span className={`fw-semibold ${s.state === 'skipped' ? 'text-body-secondary' : ''}`}>{s.label}</span>
        <Badge bg={STAGE_VARIANT[s.state]} text={s.state === 'skipped' ? 'dark' : undefined}>
          {LAUNCH_STAGE_STATE_LABELS[s.state]}
        </Badge>
        {(finished || s.state === 'failed') && s.finishedAt && (
          <small className="text-body-secondary">
            <DateTime value={s.finishedAt} />
          </small>
        )}
        {s.attempts > 1 && <small className="text-body-secondary">{s.attempts} attempts</small>}
      </div>
      <ProviderReason text={s.detail} className="small text-break" />
      {s.state === 'waiting' && s.waitingFor && (
        <div className="small text-info-emphasis text-break">
          Waiting for {s.waitingFor}
          {s.since && (
            <>
              {' '}
              since <DateTime value={s.since} />
            </>
          )}
          {s.nextCheckAt && (
            <>
              ; next check <DateTime value={s.nextCheckAt} />
            </>
          )}
        </div>
      )}
      {s.error && <div className="small text-danger text-break">{s.error}</div>}
      {s.links.length > 0 && (
        <div className="small d-flex flex-wrap gap-3">
          {s.links.map((l) => (
            <StageLink key={l.href + l.label} {...l} />
          ))}
        </div>
      )}
      {s.state === 'failed' && !['queued', 'running', 'waiting'].includes(launch.state) && (
        <Button size="sm" variant="outline-danger" className="mt-1" disabled={busy} onClick={onRetry}>
          Retry {s.label.toLowerCase()}
        </Button>
      )}
      {s.state === 'needs_confirmation' && launch.state === 'needs_confirmation' && (
        <>
          {/* What Confirm buys (with the registrar's price, or why it could not be read) or changes, before it. */}
          {launch.confirmation?.stage === s.key && s.key === 'register' && (
            <div className="small fw-semibold text-warning-emphasis text-break" data-testid="launch-confirmation">
              {launch.confirmation.cost
                ? `Cost: ${launch.confirmation.cost.amount} ${launch.confirmation.cost.currency} at Namecheap's price`
                : launch.confirmation.priceError}
            </div>
          )}
          <Button size="sm" variant="warning" className="mt-1" disabled={busy} onClick={onConfirm}>
            {s.key === 'domain' ? 'Confirm the changes and go on' : 'Confirm and go on'}
          </Button>
        </>
      )}
    </li>
  );
}

/** /launches/{id}: the stages as a timeline, polled while the launch runs or waits. */
export function LaunchPage() {
  const { id = '' } = useParams();
  const launch = useLaunch(id);
  const verb = useLaunchVerb(id);
  const dialogs = useDialogs();
  if (launch.isPending) return <LoadingSpinner />;
  if (launch.isError) return <ErrorBox message={launch.error.message} onRefresh={() => void launch.refetch()} />;
  const l = launch.data;
  const run = (v: Parameters<typeof verb.mutate>[0]) => verb.mutate(v, { onError: (e) => void dialogs.apiError(e) });
  const active = ['queued', 'running', 'waiting'].includes(l.state);
  const pct = Math.round((l.progress.done / Math.max(1, l.progress.total)) * 100);
  return (
    <section>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <h1 className="h3 mb-0 text-break">
          Launch #{l.launchNo}: {l.domainNameUnicode}
        </h1>
        <LaunchStateBadge state={l.state} />
        <div className="ms-auto d-flex gap-2">
          {(active || l.state === 'needs_confirmation') && (
            <Button
              variant="outline-secondary"
              disabled={verb.isPending}
              onClick={() =>
                void dialogs
                  .confirm(`Stop the launch of ${l.domainNameUnicode}? Stages done stay done.`, {
                    title: 'Cancel launch',
                  })
                  .then((ok) => ok && run({ verb: 'cancel' }))
              }
            >
              Cancel launch
            </Button>
          )}
          {(l.state === 'failed' || l.state === 'cancelled') && (
            <Button variant="outline-primary" disabled={verb.isPending} onClick={() => run({ verb: 'retry' })}>
              Run again
            </Button>
          )}
        </div>
      </div>
      <div className="d-flex align-items-center gap-2 mb-2">
        <ProgressBar
          now={pct}
          variant={l.state === 'failed' ? 'danger' : l.state === 'completed' ? 'success' : undefined}
          animated={active}
          className="flex-grow-1"
          aria-label="Stages finished"
        />
        <small className="text-nowrap" data-testid="launch-progress">
          {l.progress.done} of {l.progress.total}
        </small>
      </div>
      <p className="small text-body-secondary mb-3">
        Started <DateTime value={l.startedAt ?? l.createdAt} /> by {l.createdBy ?? 'someone'}
        {l.finishedAt && (
          <>
            {' '}
            · finished <DateTime value={l.finishedAt} />
          </>
        )}
        {l.domainId && (
          <>
            {' '}
            · <Link to={`/domains/${l.domainId}`}>Open the domain</Link>
          </>
        )}
      </p>
      {l.error && (
        <Alert variant="danger" className="text-break">
          {l.error}
        </Alert>
      )}
      {l.state === 'completed' && <Alert variant="success">{l.domainNameUnicode} is live: every stage is done.</Alert>}
      <ol className="fd-timeline list-unstyled">
        {l.stages.map((s) => (
          <Stage
            key={s.key}
            s={s}
            launch={l}
            busy={verb.isPending}
            onRetry={() => run({ verb: 'retry-stage', stage: s.key })}
            onConfirm={() => {
              const key = s.key === 'domain' ? 'domain' : 'register';
              const text = l.confirmation?.stage === key ? l.confirmation.text : (s.detail ?? s.label);
              void dialogs
                .confirm(confirmQuestion(text), {
                  title: key === 'domain' ? "Confirm the domain's new settings" : 'Confirm the registration',
                })
                .then((ok) => ok && run({ verb: 'confirm', stage: key }));
            }}
          />
        ))}
      </ol>
    </section>
  );
}
