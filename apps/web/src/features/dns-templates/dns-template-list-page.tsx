import type { DnsTemplate } from '@fleetdesk/contract';
import { ListView, type InUseColumn } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { dnsTemplatePaths, dnsTemplatesApi, recordSummary } from './dns-templates-api.ts';

const columns: Column<DnsTemplate>[] = [
  { header: '№', render: (t) => t.dnsTemplateNo, width: '6rem' },
  { header: 'Name', render: (t) => t.name },
  {
    header: 'Records',
    render: (t) => {
      const text = t.records.map(recordSummary).join('; ');
      return (
        <code className="d-inline-block text-truncate align-middle" style={{ maxWidth: '28rem' }} title={text}>
          {text}
        </code>
      );
    },
  },
];

// A template a launch profile uses cannot be deleted: the list always says which ones.
const inUse: InUseColumn<DnsTemplate> = { params: [], always: true, isInUse: (t) => t.isInUse };

export function DnsTemplateListPage() {
  return (
    <ListView
      title="DNS Templates"
      useList={dnsTemplatesApi.useList}
      columns={columns}
      createLink={{ to: dnsTemplatePaths.create, label: 'Create DNS Template' }}
      rowHref={(t) => dnsTemplatePaths.edit(t._id)}
      inUse={inUse}
    />
  );
}
