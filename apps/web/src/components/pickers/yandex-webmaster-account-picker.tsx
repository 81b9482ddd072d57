import type { YandexWebmasterAccount } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

const { useList } = createResourceHooks<YandexWebmasterAccount>('yandex-webmaster/accounts');

const columns: Column<YandexWebmasterAccount>[] = [
  { header: '№', render: (a) => a.yandexWebmasterAccountNo, width: '6rem' },
  { header: 'Name', render: (a) => a.name },
];

export const yandexWebmasterAccountLabel = (a: Pick<YandexWebmasterAccount, 'name'>) => a.name;

/**
 * "Select a yandex webmaster account". With `checkInUseBrandId` (and `checkInUseBrandIdDomainId`) in
 * `extraParams`, an In Use column marks accounts that another domain of that brand already uses.
 */
export function YandexWebmasterAccountPicker(props: PickerProps<YandexWebmasterAccount>) {
  const checks = Boolean(props.extraParams?.checkInUseBrandId);
  return (
    <Picker
      title="Select a yandex webmaster account"
      useList={useList}
      columns={columns}
      isInUse={checks ? (a) => a.isInUseBrandId : undefined}
      {...props}
    />
  );
}
