import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import Button from 'react-bootstrap/Button';
import type { AuditEntry } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { AuditEntryModal } from './audit-entry-modal.tsx';
import { AuditFiltersForm } from './audit-filters.tsx';
import { AUDIT_FILTERS, auditLogApi, entityLabel, recordPath, type AuditFilters } from './audit-log-api.ts';
import { DateTime } from '../../components/date-time.tsx';

/** /audit-log: who changed what and when, filtered by user, entity, record and dates (all in the URL). */
export function AuditLogPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const [shown, setShown] = useState<AuditEntry | null>(null);
  const filters: AuditFilters = {};
  for (const name of AUDIT_FILTERS) {
    const v = searchParams.get(name);
    if (v) filters[name] = v;
  }

  const handleApply = (next: AuditFilters) => {
    const params = new URLSearchParams();
    for (const name of AUDIT_FILTERS) if (next[name]) params.set(name, next[name]);
    setSearchParams(params);
  };

  const columns: Column<AuditEntry>[] = [
    { header: '№', render: (e) => e.auditNo, width: '6rem' },
    { header: 'When', render: (e) => <DateTime value={e.at} />, width: '9rem' },
    { header: 'What happened', render: (e) => <span data-testid="audit-sentence">{e.sentence}</span> },
    {
      header: 'Who',
      render: (e) => (
        <>
          {e.userId ? <Link to={`/users/${e.userId}`}>{e.username}</Link> : (e.username ?? '—')}
          {e.tokenName && <span className="text-body-secondary small"> via token “{e.tokenName}”</span>}
        </>
      ),
    },
    { header: 'Entity', render: (e) => <span className="text-nowrap">{entityLabel(e.entity)}</span>, width: '9rem' },
    {
      header: 'Record',
      render: (e) => {
        const to = recordPath(e);
        const text = e.entityId ? `${e.entityId.slice(0, 8)}…` : '—';
        return to ? (
          <Link to={to} title={e.entityId ?? undefined}>
            {text}
          </Link>
        ) : (
          <span title={e.entityId ?? undefined}>{text}</span>
        );
      },
    },
    {
      header: 'Changes',
      render: (e) => (
        <Button
          size="sm"
          variant="outline-secondary"
          onClick={() => setShown(e)}
          aria-label={`Show entry ${e.auditNo}`}
        >
          Show
        </Button>
      ),
      width: '7rem',
    },
  ];

  return (
    <>
      <ListView
        title="Audit Log"
        useList={auditLogApi.useList}
        columns={columns}
        extraParams={filters}
        hideSearch
        filters={<AuditFiltersForm key={searchParams.toString()} value={filters} onApply={handleApply} />}
        emptyText="No entries"
      />
      <AuditEntryModal entry={shown} onHide={() => setShown(null)} />
    </>
  );
}
