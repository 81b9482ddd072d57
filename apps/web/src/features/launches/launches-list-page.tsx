import { useState } from 'react';
import { Link } from 'react-router';
import Table from 'react-bootstrap/Table';
import { type Launch } from '@fleetdesk/contract';
import { LinkButton } from '../../components/link-button.tsx';
import { Pager } from '../../components/pager.tsx';
import type { Column } from '../../components/list-table.tsx';
import { ListView } from '../../components/list-view.tsx';
import { DateTime } from '../../components/date-time.tsx';
import { LaunchStateBadge } from './launch-page.tsx';
import {
  LAUNCH_BATCH_NEW_PATH,
  LAUNCH_NEW_PATH,
  launchBatchPath,
  launchPath,
  launchesApi,
  useLaunchBatches,
} from './launches-api.ts';

const columns: Column<Launch>[] = [
  { header: '№', render: (l) => l.launchNo, width: '5rem' },
  { header: 'Domain', render: (l) => <Link to={launchPath(l._id)}>{l.domainNameUnicode}</Link> },
  { header: 'State', render: (l) => <LaunchStateBadge state={l.state} />, width: '12rem' },
  { header: 'Stages', render: (l) => `${l.progress.done} of ${l.progress.total}`, width: '7rem' },
  { header: 'By', render: (l) => l.createdBy ?? '', width: '8rem' },
  { header: 'Created', render: (l) => <DateTime value={l.createdAt} />, width: '12rem' },
];

function Batches() {
  const [page, setPage] = useState(1);
  const batches = useLaunchBatches(page);
  if (!batches.data?.itemsCount) return null;
  return (
    <section aria-label="Launch batches" className="mt-4">
      <h2 className="h5">Batches</h2>
      <Table responsive size="sm">
        <thead>
          <tr>
            <th style={{ width: '5rem' }}>№</th>
            <th>State</th>
            <th>Names</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {batches.data.items.map((b) => (
            <tr key={b._id}>
              <td>
                <Link to={launchBatchPath(b._id)}>#{b.batchNo}</Link>
              </td>
              <td>{b.stateText}</td>
              <td>
                {b.counts.done} of {b.total} live{b.counts.failed ? `, ${b.counts.failed} failed` : ''}
              </td>
              <td>
                <DateTime value={b.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <Pager page={page} itemsCount={batches.data.itemsCount} onPageChange={setPage} />
    </section>
  );
}

/** /launches: every launch, newest first, and the batches of many names. */
export function LaunchesListPage() {
  return (
    <>
      <ListView
        title="Launches"
        useList={launchesApi.useList}
        columns={columns}
        rowHref={(l) => launchPath(l._id)}
        createLink={{ to: LAUNCH_NEW_PATH, label: 'Launch a site' }}
        emptyText="No launches yet: launch a site from a name in one go."
        actions={
          <LinkButton to={LAUNCH_BATCH_NEW_PATH} variant="outline-primary">
            Launch many
          </LinkButton>
        }
      />
      <Batches />
    </>
  );
}
