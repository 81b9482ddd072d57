import { z } from 'zod';
import { IdSchema, ListQuerySchema, NUL_MESSAGE, hasNoNul } from './common.ts';

export const AUDIT_ACTIONS = ['create', 'update', 'delete', 'login', 'logout', 'reveal', 'action'] as const;

export const AuditEntrySchema = z.object({
  _id: IdSchema,
  auditNo: z.number().int(),
  at: z.string(),
  userId: IdSchema.nullable(),
  username: z.string().nullable(),
  action: z.string(),
  entity: z.string(),
  entityId: z.string().nullable(),
  /** Field by field: { field: { before, after } }. Secrets are redacted. */
  diff: z.record(z.string(), z.object({ before: z.unknown(), after: z.unknown() })).nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  requestId: z.string().nullable(),
  /** The name of the personal API token the user acted through, if any. */
  tokenName: z.string().nullable(),
  /** The entry as a sentence, from the one label table (audit-labels.ts). */
  sentence: z.string(),
  /** Whether "Revert" is offered on the entry, and why not where it is not (fleet.ts `auditRevertOf`). */
  revert: z.object({
    possible: z.boolean(),
    reason: z.string().nullable(),
    /** A content change: "Restore" previews and restores this snapshot (content-snapshots.ts). */
    snapshotId: z.string().optional(),
  }),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const AuditListQuerySchema = ListQuerySchema.extend({
  entity: z.string().trim().max(100).refine(hasNoNul, { message: NUL_MESSAGE }).optional(),
  entityId: z.string().trim().max(100).refine(hasNoNul, { message: NUL_MESSAGE }).optional(),
  userId: IdSchema.optional(),
  action: z.string().trim().max(100).refine(hasNoNul, { message: NUL_MESSAGE }).optional(),
  /** Sign-ins and sign-outs: shown (the default), left out, or alone. */
  signIns: z.enum(['include', 'exclude', 'only'], { message: 'Sign-ins must be include, exclude or only' }).optional(),
  from: z.iso.datetime({ offset: true, message: 'from must be an ISO date-time' }).optional().or(z.iso.date()),
  to: z.iso.datetime({ offset: true, message: 'to must be an ISO date-time' }).optional().or(z.iso.date()),
});
export type AuditListQuery = z.infer<typeof AuditListQuerySchema>;
