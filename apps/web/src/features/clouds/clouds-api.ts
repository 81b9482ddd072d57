import type { Cloud, CloudInput } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const cloudsApi = createResourceHooks<Cloud, CloudInput>('clouds');

export const cloudPaths = resourcePaths('clouds');

/** The form's values: secrets hold the mask (keep), '' (none or keep) or null (clear). */
export type CloudFormValues = {
  email: string;
  password: string | null;
  token: string | null;
  globalAPIKey: string | null;
  emailPassword: string | null;
  proxyRegionId: string | null;
  accountId: string;
};
