import type { Executor } from '../db/client.ts';
import type { Actor } from '../http/context.ts';

/** One audit entry as a change describes it (modules/audit stores it). */
export type AuditRecord = {
  action: string;
  entity: string;
  entityId?: string | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  details?: Record<string, unknown>;
};

/** What lib/ needs of the audit service, declared here so lib/ names nothing above it. */
export type AuditRecorder = {
  /** Call inside the transaction of the change it records. */
  record(actor: Actor, r: AuditRecord, ex?: Executor): Promise<void>;
};
