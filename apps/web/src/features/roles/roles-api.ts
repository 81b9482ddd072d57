import type { Role, RoleInput } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const rolesApi = createResourceHooks<Role, RoleInput>('roles');

export const rolePaths = resourcePaths('roles');

export type RoleFormValues = { name: string; rules: string[] };
