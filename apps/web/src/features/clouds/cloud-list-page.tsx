import type { Cloud } from '@fleetdesk/contract';
import { ListView, type InUseColumn } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { cloudPaths, cloudsApi } from './clouds-api.ts';

const columns: Column<Cloud>[] = [
  { header: '№', render: (cloud) => cloud.cloudNo, width: '6rem' },
  { header: 'Email', render: (cloud) => cloud.email },
];

// In Use appears only when a check is requested (?checkInUseBrandId=…); the API answers it once domains exist.
const inUse: InUseColumn<Cloud> = {
  params: ['checkInUseBrandId', 'checkInUseBrandIdDomainId'],
  isInUse: (cloud) => cloud.isInUseBrandId,
};

export function CloudListPage() {
  return (
    <ListView
      title="Clouds"
      useList={cloudsApi.useList}
      columns={columns}
      createLink={{ to: cloudPaths.create, label: 'Create Cloud' }}
      rowHref={(cloud) => cloudPaths.edit(cloud._id)}
      inUse={inUse}
    />
  );
}
