import type { AuditListQuery } from '@fleetdesk/contract';
import type { Executor } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { auditDiff, redact } from '../../lib/audit-diff.ts';
import type { AuditRecord } from '../../lib/audit-recorder.ts';
import type { AuditRepository } from './audit.repository.ts';

/** The keys that name a record, most telling first (the sentence names what changed by it). */
const NAME_KEYS = ['domainName', 'name', 'username', 'email', 'IPAddress', 'host'] as const;

/**
 * The name of the record an entry is about, from its row before or after: a change that left the name alone
 * ("launch #5 changed the server of example.com") still names it (issue 47). Kept beside the details it came with.
 */
function withName(r: AuditRecord): Record<string, unknown> | null {
  const row = (r.after ?? r.before) as Record<string, unknown> | null | undefined;
  const details = r.details ?? null;
  if (!row || typeof row !== 'object') return details;
  if (details && NAME_KEYS.some((k) => typeof details[k] === 'string')) return details;
  for (const k of NAME_KEYS) {
    const v = row[k];
    if (typeof v === 'string' && v.trim()) return { ...(details ?? {}), [k]: v.slice(0, 300) };
  }
  return details;
}

export function createAuditService(deps: { repo: AuditRepository }) {
  return {
    /** Call inside the transaction of the change it records. */
    async record(actor: Actor, r: AuditRecord, ex?: Executor) {
      const diff = r.before !== undefined || r.after !== undefined ? auditDiff(r.before, r.after) : null;
      const details = withName(r);
      await deps.repo.insert(
        {
          userId: actor.userId,
          username: actor.username,
          action: r.action,
          entity: r.entity,
          entityId: r.entityId ?? null,
          diff,
          details: details ? (redact(details) as Record<string, unknown>) : null,
          requestId: actor.requestId,
          tokenName: actor.tokenName ?? null,
        },
        ex,
      );
    },
    list: (q: AuditListQuery) => deps.repo.list(q),
    find: (id: string) => deps.repo.find(id),
  };
}
export type AuditService = ReturnType<typeof createAuditService>;
