import type { AuditListQuery } from '@fleetdesk/contract';
import type { Executor } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { auditDiff, redact } from '../../lib/audit-diff.ts';
import type { AuditRecord } from '../../lib/audit-recorder.ts';
import type { AuditRepository } from './audit.repository.ts';

export function createAuditService(deps: { repo: AuditRepository }) {
  return {
    /** Call inside the transaction of the change it records. */
    async record(actor: Actor, r: AuditRecord, ex?: Executor) {
      const diff = r.before !== undefined || r.after !== undefined ? auditDiff(r.before, r.after) : null;
      await deps.repo.insert(
        {
          userId: actor.userId,
          username: actor.username,
          action: r.action,
          entity: r.entity,
          entityId: r.entityId ?? null,
          diff,
          details: r.details ? (redact(r.details) as Record<string, unknown>) : null,
          requestId: actor.requestId,
          tokenName: actor.tokenName ?? null,
        },
        ex,
      );
    },
    list: (q: AuditListQuery) => deps.repo.list(q),
  };
}
export type AuditService = ReturnType<typeof createAuditService>;
