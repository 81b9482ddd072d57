import type { Region, RegionInput } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const regionsApi = createResourceHooks<Region, RegionInput>('regions');

export const regionPaths = resourcePaths('regions');
