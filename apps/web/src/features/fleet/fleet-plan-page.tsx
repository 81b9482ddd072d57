import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ProgressBar from 'react-bootstrap/ProgressBar';
import Table from 'react-bootstrap/Table';
import { plural, type FleetItem, type FleetPlan } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { domainPaths } from '../domains/domains-api.ts';
import {
  FLEET_PATH,
  downloadPlanCsv,
  fleetPlanPath,
  useFleetItems,
  useFleetPlan,
  useFleetVerb,
  useForceFleetItem,
  useRevert,
  type FleetVerb,
} from './fleet-api.ts';
import { ProviderReason } from '../../components/provider-reason.tsx';
import { PlanCounts } from '../plans/plan-counts.tsx';
import { PlanRunBar, pct } from '../plans/plan-run-bar.tsx';
import { PlanRunVerbs } from '../plans/plan-run-verbs.tsx';
import { PlanItems, type PlanColumn } from '../plans/plan-items.tsx';
import { PlanPage, PlanStateBadge } from '../plans/plan-page.tsx';
import { FleetTimelineCharts } from './fleet-timeline.tsx';
import { jobPath } from '../jobs/job-path.ts';

const OUTCOME_LABEL: Record<FleetItem['outcome'], string> = {
  pending: 'Reading…',
  change: 'Will change',
  same: 'Already matches',
  refused: 'Cannot change',
};
const OUTCOME_VARIANT: Record<FleetItem['outcome'], string> = {
  pending: 'light',
  change: 'primary',
  same: 'secondary',
  refused: 'danger',
};
const STATUS_LABEL: Record<FleetItem['status'], string> = {
  pending: 'Waiting',
  running: 'Running',
  done: 'Changed',
  changed_failing: 'Changed, still failing',
  same: 'Already matched',
  failed: 'Failed',
  skipped: 'Skipped',
  cancelled: 'Cancelled',
};

/** "1 h 5 min", "3 min 20 s", "40 s". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h) return `${h} h ${m} min`;
  if (m) return `${m} min ${s % 60} s`;
  return `${s} s`;
}

function RunProgress({ plan }: { plan: FleetPlan }) {
  const active = plan.state === 'running';
  if (plan.state === 'planning') {
    const read = plan.counts.total - plan.counts.pending;
    return (
      <div>
        <ProgressBar
          now={pct(read, plan.counts.total)}
          label={`${pct(read, plan.counts.total)}%`}
          animated
          striped
          aria-label="Reading progress"
        />
        <div className="small text-body-secondary mt-1">
          Reading {read} of {plan.counts.total} domains (through each account's request budget)
        </div>
      </div>
    );
  }
  const r = plan.run;
  if (r.total === 0) return null;
  return (
    <div>
      <PlanRunBar
        label="Run progress"
        total={r.total}
        active={active}
        percentOnFirst
        segments={[
          { variant: 'success', n: r.done - r.stillFailing, key: 'done' },
          // Changed, but the check still fails: a change, in the colour of a problem left.
          { variant: 'warning', n: r.stillFailing, key: 'still-failing' },
          { variant: 'info', n: r.same, key: 'same' },
          { variant: 'secondary', n: r.skipped, key: 'skipped' },
          { variant: 'danger', n: r.failed, key: 'failed' },
          { variant: 'dark', n: r.cancelled, key: 'cancelled' },
        ]}
        textTestId="run-text"
        // Only the parts there are: a plan not run yet has no run text ("4 to go", not "· 4 to go").
        text={[
          plan.runText,
          r.pending ? `${r.pending} to go` : '',
          active && plan.etaSeconds !== null ? `about ${formatDuration(plan.etaSeconds)} left` : '',
        ]
          .filter(Boolean)
          .join(' · ')}
      />
      {plan.accounts.length > 0 && (
        // Cards on a phone (fd-list-table): the Left column is never cut (issue 47).
        <Table size="sm" className="mt-3 mb-0 align-middle fd-list-table" responsive aria-label="Cloudflare accounts">
          <thead>
            <tr>
              <th scope="col">Cloudflare account</th>
              <th scope="col" style={{ width: '40%' }}>
                Progress
              </th>
              <th scope="col">Done</th>
              <th scope="col">Failed</th>
              <th scope="col">Left</th>
            </tr>
          </thead>
          <tbody>
            {plan.accounts.map((a) => {
              const left = a.pending;
              const fin = a.total - left;
              return (
                <tr key={a.cloudId ?? 'none'}>
                  <td className="fd-cell-main text-break">{a.cloudEmail ?? 'No cloud (console only)'}</td>
                  <td data-label="Progress">
                    <ProgressBar
                      className="flex-grow-1"
                      now={pct(fin, a.total)}
                      animated={active && left > 0}
                      striped={active && left > 0}
                      variant={a.failed ? 'warning' : 'success'}
                      aria-label={`Progress of ${a.cloudEmail ?? 'no cloud'}`}
                    />
                  </td>
                  <td data-label="Done">{a.done + a.same + a.skipped}</td>
                  <td data-label="Failed">{a.failed}</td>
                  <td data-label="Left">{left}</td>
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
    </div>
  );
}

function Buttons({ plan }: { plan: FleetPlan }) {
  const verb = useFleetVerb(plan._id);
  const revert = useRevert();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const [downloading, setDownloading] = useState(false);
  const go = (v: FleetVerb) => verb.mutate(v, { onError: (err) => void dialogs.apiError(err) });
  const confirmRun = async () => {
    const ok = await dialogs.confirm(
      `Change ${plural(plan.run.total, 'domain')}: ${plan.description}. Each is read again first; one changed since the plan is skipped.`,
      { title: 'Run the plan', confirmLabel: 'Run' },
    );
    if (ok) go('run');
  };
  const confirmCancel = async () => {
    const ok = await dialogs.confirm(
      'Domains not yet changed are left as they are. A cancelled plan cannot be run again.',
      { title: 'Cancel the plan', confirmLabel: 'Cancel the plan', confirmVariant: 'danger' },
    );
    if (ok) go('cancel');
  };
  const confirmRevert = async () => {
    const ok = await dialogs.confirm(
      `Plan the revert of ${plural(plan.run.done, 'changed domain')}: each is read now and shown before anything runs. A domain changed since this run is left alone unless you tick it.`,
      { title: 'Revert this run', confirmLabel: 'Plan the revert' },
    );
    if (ok)
      revert.mutate(
        { planId: plan._id },
        {
          onSuccess: (next) => void navigate(fleetPlanPath(next._id)),
          onError: (err) => void dialogs.apiError(err),
        },
      );
  };
  const s = plan.state;
  const busy = verb.isPending || revert.isPending;
  return (
    <div className="d-flex flex-wrap gap-2">
      {s === 'planned' && (
        <Button onClick={() => void confirmRun()} disabled={busy || plan.run.total === 0}>
          Run
        </Button>
      )}
      <PlanRunVerbs plan={plan} busy={busy} go={go} />
      {['planning', 'planned', 'running', 'paused'].includes(s) && (
        <Button variant="outline-danger" onClick={() => void confirmCancel()} disabled={busy}>
          Cancel
        </Button>
      )}
      <Button
        variant="outline-secondary"
        disabled={downloading}
        onClick={() => {
          setDownloading(true);
          downloadPlanCsv(plan)
            .catch((err: unknown) => void dialogs.apiError(err))
            .finally(() => setDownloading(false));
        }}
      >
        Download CSV
      </Button>
      {plan.revert.possible ? (
        <Button variant="outline-warning" onClick={() => void confirmRevert()} disabled={busy}>
          Revert this run
        </Button>
      ) : (
        plan.startedAt &&
        plan.revert.reason && (
          <span className="small text-body-secondary align-self-center" data-testid="revert-reason">
            Not revertible: {plan.revert.reason}
          </span>
        )
      )}
    </div>
  );
}

/** A revert's row changed since its run: left alone unless ticked (only while the revert is planned). */
function ForceBox({ plan, item }: { plan: FleetPlan; item: FleetItem }) {
  const force = useForceFleetItem(plan._id);
  const dialogs = useDialogs();
  // Shown at once; the row read again after the answer confirms it (a refusal puts it back).
  const [checked, setChecked] = useState(item.forced);
  useEffect(() => setChecked(item.forced), [item.forced]);
  return (
    <Form.Check
      type="checkbox"
      id={`force-${item.seq}`}
      className="small mt-1"
      label="Revert anyway"
      checked={checked}
      disabled={plan.state !== 'planned' || force.isPending}
      onChange={(e) => {
        const next = e.currentTarget.checked;
        setChecked(next);
        force.mutate(
          { seq: item.seq, force: next },
          {
            onError: (err) => {
              setChecked(!next);
              void dialogs.apiError(err);
            },
          },
        );
      }}
    />
  );
}

function Items({ plan }: { plan: FleetPlan }) {
  const r = plan.run;
  const version = `${plan.state}:${plan.counts.pending}:${r.done}:${r.same}:${r.failed}:${r.skipped}:${r.cancelled}`;
  const { state, query } = useFleetItems(plan._id, version);
  const ran = !['planning', 'planned'].includes(plan.state);
  const columns: PlanColumn<FleetItem>[] = [
    {
      header: 'Domain',
      label: 'Domain',
      className: 'fd-cell-main',
      cell: (it) => (it.domainId ? <Link to={domainPaths.edit(it.domainId)}>{it.domainName}</Link> : it.domainName),
    },
    { header: 'Cloud', label: 'Cloud', className: 'small', cell: (it) => it.cloudEmail ?? '' },
    {
      header: 'Outcome',
      label: 'Outcome',
      // One block: on a phone's card the badge, the reason and the tick stack under the label.
      cell: (it) => (
        <div>
          <Badge bg={OUTCOME_VARIANT[it.outcome]} text={it.outcome === 'pending' ? 'dark' : undefined}>
            {OUTCOME_LABEL[it.outcome]}
          </Badge>
          <ProviderReason text={it.reason} className="small text-body-secondary text-break" />
          {it.changedSince && <ForceBox plan={plan} item={it} />}
        </div>
      ),
    },
    { header: 'Now', label: 'Now', className: 'small text-break fd-pre-line', cell: (it) => it.before ?? '' },
    {
      header: 'After',
      label: 'After',
      className: 'small text-break fd-pre-line',
      cell: (it) => (it.outcome === 'change' || it.changedSince ? (it.after ?? '') : ''),
    },
  ];
  if (ran)
    columns.push({
      header: 'Run',
      label: 'Run',
      className: 'small',
      cell: (it) => (
        <>
          {it.outcome === 'change' ? STATUS_LABEL[it.status] : ''}
          {it.error && (
            <div
              className={
                it.status === 'failed'
                  ? 'text-danger'
                  : it.status === 'changed_failing'
                    ? 'text-warning-emphasis'
                    : 'text-body-secondary'
              }
            >
              {it.error}
            </div>
          )}
        </>
      ),
    });
  return (
    <PlanItems
      label="Domains of the plan"
      state={state}
      query={query}
      filter={{
        label: 'Outcome',
        every: 'Every outcome',
        options: [
          ['change', 'Will change'],
          ['same', 'Already matches'],
          ['refused', 'Cannot change'],
        ],
      }}
      columns={columns}
      empty="No domains found"
      table={{ className: 'align-middle fd-list-table', 'aria-label': 'Domains' }}
    />
  );
}

/** /fleet/{id}: the plan (counts, table of changes, CSV), its run (progress per account, time left) and controls. */
export function FleetPlanPage() {
  const { id = '' } = useParams();
  const query = useFleetPlan(id);
  return (
    <PlanPage
      query={query}
      title={(plan) => <>Fleet plan #{plan.planNo}</>}
      badge={(plan) => <PlanStateBadge plan={plan} />}
      back={{ to: FLEET_PATH, label: 'All plans' }}
      subtitle={(plan) => (
        <>
          <strong className="text-body">{plan.actionLabel}</strong>: {plan.description} · planned by{' '}
          {plan.createdBy ?? 'unknown'} on <DateTime value={plan.createdAt} />
        </>
      )}
      notes={(plan) =>
        plan.actionKind === 'revert' && (
          <p className="small mb-2">
            Puts back what{' '}
            {typeof plan.action.planId === 'string' ? (
              <Link to={fleetPlanPath(plan.action.planId)}>plan #{String(plan.action.planNo)}</Link>
            ) : typeof plan.action.importId === 'string' ? (
              <Link to={`/imports/${encodeURIComponent(plan.action.importId)}`}>
                import #{String(plan.action.importNo)}
              </Link>
            ) : (
              <>audit entry № {String(plan.action.auditNo)}</>
            )}{' '}
            changed; a domain changed since is left alone unless ticked.
          </p>
        )
      }
      links={(plan) =>
        plan.jobId && (
          <p className="small mb-3">
            <Link to={jobPath(plan.jobId)}>Its job on the Jobs screen</Link>
          </p>
        )
      }
      counts={(plan) => (
        <PlanCounts
          cells={[
            ['Domains', plan.counts.total, 'body'],
            ['Will change', plan.counts.change, 'primary'],
            ['Already match', plan.counts.same, 'secondary'],
            ['Cannot change', plan.counts.refused, 'danger'],
          ]}
        />
      )}
      progress={(plan) => (
        <>
          <RunProgress plan={plan} />
          <FleetTimelineCharts plan={plan} />
        </>
      )}
      buttons={(plan) => <Buttons plan={plan} />}
      items={(plan) => <Items plan={plan} />}
    />
  );
}
