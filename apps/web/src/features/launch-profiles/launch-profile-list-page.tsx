import { CONTENT_SOURCE_LABELS, SSL_MODE_LABELS, type LaunchProfile } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { launchProfilePaths, launchProfilesApi } from './launch-profiles-api.ts';

const columns: Column<LaunchProfile>[] = [
  { header: '№', render: (p) => p.launchProfileNo, width: '6rem' },
  { header: 'Name', render: (p) => p.name },
  { header: 'Registers', render: (p) => (p.register ? 'Yes' : 'No'), width: '7rem' },
  { header: 'Content', render: (p) => CONTENT_SOURCE_LABELS[p.contentSource.kind] },
  { header: 'SSL', render: (p) => `${SSL_MODE_LABELS[p.sslMode]}${p.tls13 ? ', TLS 1.3' : ''}` },
  { header: 'Yandex', render: (p) => (p.yandexWebmasterAccountId ? 'Yes' : 'No'), width: '6rem' },
  { header: 'Google', render: (p) => (p.googleSearchAccountId ? 'Yes' : 'No'), width: '6rem' },
];

export function LaunchProfileListPage() {
  return (
    <ListView
      title="Launch Profiles"
      useList={launchProfilesApi.useList}
      columns={columns}
      createLink={{ to: launchProfilePaths.create, label: 'Create Launch Profile' }}
      rowHref={(p) => launchProfilePaths.edit(p._id)}
    />
  );
}
