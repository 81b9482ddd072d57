import type { Region } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { regionPaths, regionsApi } from './regions-api.ts';

const columns: Column<Region>[] = [
  { header: '№', render: (region) => region.regionNo, width: '6rem' },
  { header: 'Name', render: (region) => region.name },
];

export function RegionListPage() {
  return (
    <ListView
      title="Regions"
      useList={regionsApi.useList}
      columns={columns}
      createLink={{ to: regionPaths.create, label: 'Create Region' }}
      rowHref={(region) => regionPaths.edit(region._id)}
    />
  );
}
