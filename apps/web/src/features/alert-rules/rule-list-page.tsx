import { ALERT_EVENT_LABELS, ALERT_SEVERITY_LABELS, type AlertRule } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { formatYesNo } from '../../lib/format.ts';
import { rulePaths, rulesApi } from './alert-rules-api.ts';

const scopeText = (r: AlertRule) =>
  r.scope === 'brand' ? `Brand ${r.brand?.name ?? ''}` : r.scope === 'filter' ? 'Saved filter' : 'All domains';

const columns: Column<AlertRule>[] = [
  { header: '№', render: (r) => r.ruleNo, width: '5rem' },
  { header: 'Name', render: (r) => r.name },
  { header: 'Events', render: (r) => r.events.map((e) => ALERT_EVENT_LABELS[e]).join(', ') },
  { header: 'Domains', render: scopeText },
  { header: 'Channels', render: (r) => r.channels.map((c) => c.name).join(', ') },
  { header: 'Min. severity', render: (r) => ALERT_SEVERITY_LABELS[r.minSeverity] },
  {
    header: 'Quiet hours',
    render: (r) => (r.quietStart ? `${r.quietStart}–${r.quietEnd} ${r.timeZone ?? ''}` : '—'),
  },
  { header: 'Enabled', render: (r) => formatYesNo(r.enabled) },
];

export function RuleListPage() {
  return (
    <ListView
      title="Alert Rules"
      useList={rulesApi.useList}
      columns={columns}
      createLink={{ to: rulePaths.create, label: 'Create Rule' }}
      rowHref={(r) => rulePaths.edit(r._id)}
    />
  );
}
