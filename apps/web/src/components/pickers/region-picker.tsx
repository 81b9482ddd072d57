import type { Region } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import type { Column } from '../list-table.tsx';
import { Picker, type PickerProps } from '../picker.tsx';

// Pickers live in the shared kit so that any feature can use them without importing another feature.
const { useList } = createResourceHooks<Region>('regions');

const columns: Column<Region>[] = [
  { header: '№', render: (region) => region.regionNo, width: '6rem' },
  { header: 'Name', render: (region) => region.name },
];

export const regionLabel = (region: Pick<Region, 'name'>) => region.name;

/** "Select a region": a searchable, paginated modal list of regions. */
export function RegionPicker(props: PickerProps<Region>) {
  return <Picker title="Select a region" useList={useList} columns={columns} {...props} />;
}
