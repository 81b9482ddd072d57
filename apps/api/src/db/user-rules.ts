import { sql, type SQL } from 'drizzle-orm';
import { roles, userRoles, users } from './schema/index.ts';

/**
 * The rules a user holds at this moment, through all their roles, as a column of a select that joins `users`
 * (sessions and API tokens read it on every call, so a role changed takes effect at once).
 */
export const userRulesColumn = (): SQL<string[]> => sql<string[]>`coalesce((
  select array_agg(distinct r.rule) from ${userRoles} ur
  join ${roles} ro on ro.id = ur.role_id, unnest(ro.rules) as r(rule)
  where ur.user_id = ${users.id}), '{}')`;
