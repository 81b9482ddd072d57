import type { Status, User, UserInput } from '@fleetdesk/contract';
import { SECOND_DOCUMENT, createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const usersApi = createResourceHooks<User, UserInput>('users', SECOND_DOCUMENT);

export const userPaths = resourcePaths('users');

/** The form's values: the password is empty unless it is being set; roles are ids. */
export type UserFormValues = {
  username: string;
  name: string;
  email: string;
  password: string;
  status: Status;
  roles: string[];
};
