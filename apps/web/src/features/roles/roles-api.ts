import type { Role, RoleInput } from '@fleetdesk/contract';
import { SECOND_DOCUMENT, createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const rolesApi = createResourceHooks<Role, RoleInput>('roles', SECOND_DOCUMENT);

export const rolePaths = resourcePaths('roles');

export type RoleFormValues = {
  name: string;
  rules: string[];
  requireTwoFactor: boolean;
  tokensWithoutExpiry: boolean;
};
