import { Link } from 'react-router';
import type { FleetPlanSummary } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { fleetPlanPath, fleetPlansApi } from './fleet-api.ts';
import { PlanStateBadge } from '../plans/plan-page.tsx';

const columns: Column<FleetPlanSummary>[] = [
  { header: '№', render: (p) => p.planNo, width: '5rem' },
  {
    header: 'Action',
    render: (p) => (
      <Link to={fleetPlanPath(p._id)}>
        {p.actionLabel}: {p.description}
      </Link>
    ),
  },
  { header: 'State', render: (p) => <PlanStateBadge plan={p} />, width: '11rem' },
  { header: 'Domains', render: (p) => p.counts.total, width: '6rem' },
  {
    header: 'Changed',
    render: (p) => p.runText || '—',
    width: '14rem',
  },
  { header: 'By', render: (p) => p.createdBy ?? '', width: '8rem' },
  { header: 'Created', render: (p) => <DateTime value={p.createdAt} />, width: '10rem' },
];

/** /fleet: every fleet plan, newest first. New plans start from the domains list's selection. */
export function FleetListPage() {
  return (
    <ListView
      title="Fleet"
      useList={fleetPlansApi.useList}
      columns={columns}
      rowHref={(p) => fleetPlanPath(p._id)}
      hideSearch
      emptyText="No fleet plans yet: select domains on the Domains list and choose “Plan a fleet change”."
    />
  );
}
