import { Link } from 'react-router';
import { IMPORT_SOURCE_LABELS, type ImportPlan } from '@fleetdesk/contract';
import type { Column } from '../../components/list-table.tsx';
import { ListView } from '../../components/list-view.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { IMPORTS_NEW_PATH, importPath, importsApi } from './imports-api.ts';
import { ImportStateBadge } from './import-page.tsx';

const columns: Column<ImportPlan>[] = [
  { header: '№', render: (p) => p.planNo, width: '5rem' },
  {
    header: 'From',
    render: (p) => (
      <Link to={importPath(p._id)}>
        {IMPORT_SOURCE_LABELS[p.source]}: {p.sourceLabel}
      </Link>
    ),
  },
  { header: 'State', render: (p) => <ImportStateBadge plan={p} />, width: '8rem' },
  { header: 'Names', render: (p) => p.counts.total, width: '6rem' },
  {
    header: 'Imported',
    render: (p) =>
      p.run.total ? `${p.run.done} of ${p.run.total}${p.run.failed ? ` (${p.run.failed} failed)` : ''}` : '—',
    width: '10rem',
  },
  { header: 'By', render: (p) => p.createdBy ?? '', width: '8rem' },
  { header: 'Created', render: (p) => <DateTime value={p.createdAt} />, width: '12rem' },
];

/** /imports: every import, newest first. */
export function ImportsListPage() {
  return (
    <ListView
      title="Imports"
      useList={importsApi.useList}
      columns={columns}
      rowHref={(p) => importPath(p._id)}
      createLink={{ to: IMPORTS_NEW_PATH, label: 'New import' }}
      hideSearch
      emptyText="No imports yet: bring in a Cloudflare account's zones, a server's sites or a registrar account."
    />
  );
}
