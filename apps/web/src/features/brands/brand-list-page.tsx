import type { Brand } from '@fleetdesk/contract';
import { ListView, type InUseColumn } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { brandPaths, brandsApi } from './brands-api.ts';

const columns: Column<Brand>[] = [
  { header: '№', render: (brand) => brand.brandNo, width: '6rem' },
  { header: 'Name', render: (brand) => brand.name },
];

// In Use appears only when one of these checks is requested (?checkInUseCloudId=… and so on).
const inUse: InUseColumn<Brand> = {
  params: [
    'checkInUseCloudId',
    'checkInUseCloudIdDomainId',
    'checkInUseYandexWebmasterAccountId',
    'checkInUseYandexWebmasterAccountIdDomainId',
  ],
  isInUse: (brand) => brand.isInUseCloudId || brand.isInUseYandexWebmasterAccountId,
};

export function BrandListPage() {
  return (
    <ListView
      title="Brands"
      useList={brandsApi.useList}
      columns={columns}
      createLink={{ to: brandPaths.create, label: 'Create Brand' }}
      rowHref={(brand) => brandPaths.edit(brand._id)}
      inUse={inUse}
    />
  );
}
