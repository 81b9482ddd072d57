import { Link } from 'react-router';
import type { Domain } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { DOMAIN_EXPORT_URL, domainPaths, domainsApi } from './domains-api.ts';
import { ExpiryDate } from '../../components/date-time.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';

/** A 'YYYY-MM-DD' date in the operator's locale, read as a calendar day (no time zone shift). */
export function formatDay(value: string | null | undefined): string {
  if (!value) return '';
  const [y, m, d] = value.split('-').map(Number);
  if (!y || !m || !d) return value;
  return new Date(y, m - 1, d).toLocaleDateString();
}

const columns: Column<Domain>[] = [
  { header: '№', render: (d) => d.domainNo, width: '6rem' },
  {
    header: 'Domain Name',
    render: (d) => (
      <Link to={domainPaths.edit(d._id)} title={d.domainName !== d.domainNameUnicode ? d.domainName : undefined}>
        {d.domainNameUnicode}
      </Link>
    ),
  },
  { header: 'Redirect Domain', render: (d) => d.redirectDomainNameUnicode ?? '' },
  {
    header: 'Expiration Date',
    render: (d) => <ExpiryDate value={d.domainRegistratorExpirationDate} />,
    width: '10rem',
  },
  { header: 'Restricted', render: (d) => (d.isRestricted ? 'Yes' : ''), width: '7rem' },
  {
    header: 'Status',
    width: '7rem',
    render: (d) => <StatusBadge status={d.status} />,
  },
];

export function DomainListPage() {
  return (
    <ListView
      title="Domains"
      useList={domainsApi.useList}
      loadFailedText={domainsApi.fallbacks.load}
      columns={columns}
      createLink={{ to: domainPaths.create, label: 'Create Domain' }}
      rowHref={(d) => domainPaths.edit(d._id)}
      csvExport={{ url: DOMAIN_EXPORT_URL, fileName: 'domains.csv' }}
    />
  );
}
