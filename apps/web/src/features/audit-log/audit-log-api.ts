import { AUDIT_ACTION_LABELS, AUDIT_ENTITY_LABELS, type AuditEntry, type User } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';

export const auditLogApi = createResourceHooks<AuditEntry>('audit-log');

/** For the label of the user filter when it comes from the URL. */
export const auditUsersApi = createResourceHooks<User>('users');

export const AUDIT_FILTERS = ['entity', 'entityId', 'userId', 'action', 'signIns', 'from', 'to'] as const;
export type AuditFilterName = (typeof AUDIT_FILTERS)[number];
export type AuditFilters = Partial<Record<AuditFilterName, string>>;

/** The audit log's entity names (the resources' URL names) with their labels. */
export const AUDIT_ENTITIES: readonly { value: string; label: string }[] = Object.entries(AUDIT_ENTITY_LABELS).map(
  ([value, l]) => ({ value, label: l.plural }),
);

/** The actions the audit trail records, by their words (one table: the contract's audit-labels.ts). */
export const AUDIT_ACTIONS_LIST: readonly { value: string; label: string }[] = Object.entries(AUDIT_ACTION_LABELS)
  .map(([value, label]) => ({ value, label: `${label} (${value.replace(/_/g, ' ')})` }))
  .sort((a, b) => a.label.localeCompare(b.label));

const LINKED = new Set(
  AUDIT_ENTITIES.map((e) => e.value).filter(
    (v) => !['sessions', 'yandex-webmaster', 'google-search', 'jobs', 'fleet_plans'].includes(v),
  ),
);

/** The web page of an entry's record, when there is one. Sign-ins point at the user. */
export function recordPath(entry: Pick<AuditEntry, 'entity' | 'entityId'>): string | undefined {
  if (!entry.entityId) return undefined;
  const id = encodeURIComponent(entry.entityId);
  if (entry.entity === 'sessions') return `/users/${id}`;
  if (entry.entity === 'yandex-webmaster') return `/yandex-webmaster/accounts/${id}`;
  if (entry.entity === 'google-search') return `/google-search/accounts/${id}`;
  if (entry.entity === 'fleet_plans') return `/fleet/${id}`;
  if (entry.entity === 'jobs') return '/jobs';
  return LINKED.has(entry.entity) ? `/${entry.entity}/${id}` : undefined;
}

export const entityLabel = (entity: string) => AUDIT_ENTITIES.find((e) => e.value === entity)?.label ?? entity;
