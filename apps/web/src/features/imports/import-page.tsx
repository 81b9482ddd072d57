import { Link, useNavigate, useParams } from 'react-router';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import { IMPORT_SOURCE_LABELS, plural, type ImportItem, type ImportPlan } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { domainPaths } from '../domains/domains-api.ts';
import { fleetPlanPath, useRevert } from '../fleet/fleet-api.ts';
import { IMPORTS_PATH, useImport, useImportItems, useImportVerb, type ImportVerb } from './imports-api.ts';
import { ProviderReason } from '../../components/provider-reason.tsx';
import { PlanCounts } from '../plans/plan-counts.tsx';
import { PlanRunBar } from '../plans/plan-run-bar.tsx';
import { PlanRunVerbs } from '../plans/plan-run-verbs.tsx';
import { PlanItems, type PlanColumn } from '../plans/plan-items.tsx';
import { PlanPage, PlanStateBadge } from '../plans/plan-page.tsx';

const OUTCOME_LABEL: Record<ImportItem['outcome'], string> = { create: 'Create', link: 'Link', skip: 'Skip' };
const OUTCOME_VARIANT: Record<ImportItem['outcome'], string> = {
  create: 'success',
  link: 'primary',
  skip: 'secondary',
};
const STATUS_LABEL: Record<string, string> = {
  pending: 'Waiting',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  skipped: 'Skipped',
  cancelled: 'Cancelled',
};

/** The API's words (outcomes.ts: failures counted, the same as a fleet run's); a plan still reading says so. */
export function ImportStateBadge({ plan }: { plan: Pick<ImportPlan, 'state' | 'stateText'> }) {
  if (plan.state === 'planning') return <Badge bg="info">Reading</Badge>;
  return <PlanStateBadge plan={plan} plain />;
}

function Progress({ plan }: { plan: ImportPlan }) {
  if (plan.state === 'planning')
    return (
      <div className="small text-body-secondary">
        Reading {IMPORT_SOURCE_LABELS[plan.source].toLowerCase()} {plan.sourceLabel} (every page), then comparing each
        name with the console…
      </div>
    );
  const r = plan.run;
  if (r.total === 0) return <div className="small text-body-secondary">Nothing to import: every name is skipped.</div>;
  const finished = r.done + r.failed + r.skipped;
  return (
    <PlanRunBar
      label="Import progress"
      total={r.total}
      active={plan.state === 'running'}
      segments={[
        { variant: 'success', n: r.done, key: 'done' },
        { variant: 'secondary', n: r.skipped, key: 'skipped' },
        { variant: 'danger', n: r.failed, key: 'failed' },
      ]}
      textTestId="import-progress"
      text={`${finished} of ${r.total} names: ${r.done} imported, ${r.skipped} skipped, ${r.failed} failed`}
    />
  );
}

function Buttons({ plan }: { plan: ImportPlan }) {
  const verb = useImportVerb(plan._id);
  const revert = useRevert();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const confirmRevert = async () => {
    const ok = await dialogs.confirm(
      `Plan the revert of this import: the domains it created are removed unless something changed or linked them since, and the zones, registrar or server it linked are unlinked. Each is read now and shown before anything runs; nothing changes at ${plan.sourceLabel}.`,
      { title: 'Revert this import', confirmLabel: 'Plan the revert' },
    );
    if (ok)
      revert.mutate(
        { importId: plan._id },
        {
          onSuccess: (next) => void navigate(fleetPlanPath(next._id)),
          onError: (err) => void dialogs.apiError(err),
        },
      );
  };
  const go = (v: ImportVerb) => verb.mutate(v, { onError: (err) => void dialogs.apiError(err) });
  const confirmRun = async () => {
    const ok = await dialogs.confirm(
      `Import ${plural(plan.run.total, 'name')} from ${plan.sourceLabel}: ${plan.counts.create} created, ${plan.counts.link} linked. Each is checked again first; one done meanwhile is skipped.`,
      { title: 'Run the import', confirmLabel: 'Run' },
    );
    if (ok) go('run');
  };
  const s = plan.state;
  return (
    <div className="d-flex flex-wrap gap-2">
      {s === 'planned' && (
        <Button onClick={() => void confirmRun()} disabled={verb.isPending || plan.run.total === 0}>
          Run
        </Button>
      )}
      <PlanRunVerbs plan={plan} busy={verb.isPending} go={go} />
      {['planning', 'planned', 'running', 'paused'].includes(s) && (
        <Button variant="outline-danger" onClick={() => go('cancel')} disabled={verb.isPending}>
          Cancel
        </Button>
      )}
      {plan.startedAt && s !== 'running' && plan.run.done > 0 && (
        <Button variant="outline-warning" onClick={() => void confirmRevert()} disabled={revert.isPending}>
          Revert this import
        </Button>
      )}
    </div>
  );
}

function Items({ plan }: { plan: ImportPlan }) {
  const r = plan.run;
  const version = `${plan.state}:${plan.counts.total}:${r.done}:${r.failed}:${r.skipped}`;
  const { state, query } = useImportItems(plan._id, version);
  const ran = !['planning', 'planned'].includes(plan.state);
  const columns: PlanColumn<ImportItem>[] = [
    {
      header: 'Name',
      className: 'text-break',
      cell: (it) => (it.domainId ? <Link to={domainPaths.edit(it.domainId)}>{it.nameUnicode}</Link> : it.nameUnicode),
    },
    { header: 'Plan', cell: (it) => <Badge bg={OUTCOME_VARIANT[it.outcome]}>{OUTCOME_LABEL[it.outcome]}</Badge> },
    {
      header: 'Why',
      className: 'small text-break',
      cell: (it) => (
        <>
          <ProviderReason text={it.reason} />
          {typeof it.detail.user === 'string' && (
            <div className="text-body-secondary">Panel user: {it.detail.user}</div>
          )}
        </>
      ),
    },
  ];
  if (ran)
    columns.push({
      header: 'Run',
      className: 'small',
      cell: (it) => (
        <>
          {it.outcome !== 'skip' ? (STATUS_LABEL[it.status] ?? it.status) : ''}
          {it.error && <div className={it.status === 'failed' ? 'text-danger' : 'text-body-secondary'}>{it.error}</div>}
        </>
      ),
    });
  return (
    <PlanItems
      label="Names of the import"
      state={state}
      query={query}
      filter={{
        label: 'Outcome',
        every: 'Every outcome',
        options: [
          ['create', 'Create'],
          ['link', 'Link'],
          ['skip', 'Skip'],
        ],
      }}
      columns={columns}
      empty={plan.state === 'planning' ? 'Reading…' : 'No names found'}
      table={{ 'data-testid': 'import-items' }}
    />
  );
}

/** /imports/{id}: the plan (counts, searchable names with what happens to each and why), then its run. */
export function ImportPage() {
  const { id = '' } = useParams();
  const query = useImport(id);
  return (
    <PlanPage
      query={query}
      title={(plan) => <>Import #{plan.planNo}</>}
      badge={(plan) => <ImportStateBadge plan={plan} />}
      back={{ to: IMPORTS_PATH, label: 'All imports' }}
      subtitle={(plan) => (
        <>
          <strong className="text-body">{IMPORT_SOURCE_LABELS[plan.source]}</strong>: {plan.sourceLabel} · planned by{' '}
          {plan.createdBy ?? 'unknown'} · <DateTime value={plan.createdAt} />
          {plan.sourceUsers && (
            <>
              <br />
              Panel users read ({plan.sourceUsers.length}): {plan.sourceUsers.join(', ') || 'none'}
            </>
          )}
        </>
      )}
      counts={(plan) => (
        <PlanCounts
          cells={[
            ['Names', plan.counts.total, 'body'],
            ['To create', plan.counts.create, 'success'],
            ['To link', plan.counts.link, 'primary'],
            ['Skipped', plan.counts.skip, 'secondary'],
          ]}
        />
      )}
      progress={(plan) => <Progress plan={plan} />}
      buttons={(plan) => <Buttons plan={plan} />}
      items={(plan) => <Items plan={plan} />}
    />
  );
}
