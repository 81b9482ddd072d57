import type { Brand } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<Brand>('brands');

const columns: Column<Brand>[] = [
  { header: '№', render: (brand) => brand.brandNo, width: '6rem' },
  { header: 'Name', render: (brand) => brand.name },
];

export const brandLabel = (brand: Pick<Brand, 'name'>) => brand.name;

/** The in-use checks the brand list takes (spec 1 §7). */
export const BRAND_IN_USE_PARAMS = ['checkInUseCloudId', 'checkInUseYandexWebmasterAccountId'] as const;

const isBrandInUse = (brand: Brand) => Boolean(brand.isInUseCloudId || brand.isInUseYandexWebmasterAccountId);

/**
 * "Select a brand". With in-use checks in `extraParams` (checkInUseCloudId and its DomainId, and the same for a
 * webmaster account), an In Use column marks brands that another domain already links to that cloud or account.
 */
export function BrandPicker(props: PickerProps<Brand>) {
  const checks = BRAND_IN_USE_PARAMS.some((name) => Boolean(props.extraParams?.[name]));
  return (
    <Picker
      title="Select a brand"
      useList={useList}
      columns={columns}
      isInUse={checks ? isBrandInUse : undefined}
      {...props}
    />
  );
}
