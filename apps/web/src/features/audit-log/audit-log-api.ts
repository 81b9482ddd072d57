import type { AuditEntry, User } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';

export const auditLogApi = createResourceHooks<AuditEntry>('audit-log');

/** For the label of the user filter when it comes from the URL. */
export const auditUsersApi = createResourceHooks<User>('users');

export const AUDIT_FILTERS = ['entity', 'entityId', 'userId', 'from', 'to'] as const;
export type AuditFilterName = (typeof AUDIT_FILTERS)[number];
export type AuditFilters = Partial<Record<AuditFilterName, string>>;

/** The audit log's entity names (the resources' URL names) with their labels. */
export const AUDIT_ENTITIES: readonly { value: string; label: string }[] = [
  { value: 'users', label: 'Users' },
  { value: 'roles', label: 'Roles' },
  { value: 'domains', label: 'Domains' },
  { value: 'clouds', label: 'Clouds' },
  { value: 'proxies', label: 'Proxies' },
  { value: 'servers', label: 'Servers' },
  { value: 'brands', label: 'Brands' },
  { value: 'regions', label: 'Regions' },
  { value: 'firewall-rules', label: 'Firewall Rules' },
  { value: 'domain-registrators', label: 'Domain Registrators' },
  { value: 'domain-registrators-contacts', label: 'Domain Registrator Contacts' },
  { value: 'yandex-webmaster', label: 'Yandex Webmaster' },
  { value: 'sessions', label: 'Sign-ins' },
];

const LINKED = new Set(AUDIT_ENTITIES.map((e) => e.value).filter((v) => v !== 'sessions' && v !== 'yandex-webmaster'));

/** The web page of an entry's record, when there is one. Sign-ins point at the user. */
export function recordPath(entry: Pick<AuditEntry, 'entity' | 'entityId'>): string | undefined {
  if (!entry.entityId) return undefined;
  const id = encodeURIComponent(entry.entityId);
  if (entry.entity === 'sessions') return `/users/${id}`;
  if (entry.entity === 'yandex-webmaster') return `/yandex-webmaster/accounts/${id}`;
  return LINKED.has(entry.entity) ? `/${entry.entity}/${id}` : undefined;
}

export const entityLabel = (entity: string) => AUDIT_ENTITIES.find((e) => e.value === entity)?.label ?? entity;
