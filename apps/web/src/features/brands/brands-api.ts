import type { Brand, BrandInput } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const brandsApi = createResourceHooks<Brand, BrandInput>('brands');

export const brandPaths = resourcePaths('brands');
