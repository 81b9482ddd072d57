import { and, count, desc, eq, gte, inArray, lte, notInArray, type SQL } from 'drizzle-orm';
import type { AuditEntry, AuditListQuery, ListResult } from '@fleetdesk/contract';
import { AUDIT_SIGN_IN_ACTIONS, PAGE_SIZE, auditRevertOf, auditSentence } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { auditLog } from '../../db/schema/index.ts';
import { pageOffset } from '../../http/list-query.ts';

export type NewAuditEntry = typeof auditLog.$inferInsert;

const toEntry = (r: typeof auditLog.$inferSelect): AuditEntry => ({
  _id: r.id,
  auditNo: r.auditNo,
  at: r.at.toISOString(),
  userId: r.userId,
  username: r.username,
  action: r.action,
  entity: r.entity,
  entityId: r.entityId,
  diff: r.diff ?? null,
  details: r.details ?? null,
  requestId: r.requestId,
  tokenName: r.tokenName ?? null,
  sentence: auditSentence(r),
  revert: auditRevertOf(r),
});

/** A date-only `to` means the whole of that day. */
const toBound = (v: string, end: boolean) => {
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return new Date(`${v}T${end ? '23:59:59.999' : '00:00:00.000'}Z`);
  return new Date(v);
};

export function createAuditRepository(db: Db) {
  return {
    async insert(entry: NewAuditEntry, ex: Executor = db) {
      await ex.insert(auditLog).values(entry);
    },
    async find(id: string, ex: Executor = db): Promise<AuditEntry | undefined> {
      const [r] = await ex.select().from(auditLog).where(eq(auditLog.id, id));
      return r ? toEntry(r) : undefined;
    },
    async list(q: AuditListQuery, ex: Executor = db): Promise<ListResult<AuditEntry>> {
      const conds: SQL[] = [];
      if (q.entity) conds.push(eq(auditLog.entity, q.entity));
      if (q.entityId) conds.push(eq(auditLog.entityId, q.entityId));
      if (q.userId) conds.push(eq(auditLog.userId, q.userId));
      if (q.action) conds.push(eq(auditLog.action, q.action));
      if (q.signIns === 'exclude') conds.push(notInArray(auditLog.action, [...AUDIT_SIGN_IN_ACTIONS]));
      if (q.signIns === 'only') conds.push(inArray(auditLog.action, [...AUDIT_SIGN_IN_ACTIONS]));
      if (q.from) conds.push(gte(auditLog.at, toBound(q.from, false)));
      if (q.to) conds.push(lte(auditLog.at, toBound(q.to, true)));
      const where = conds.length ? and(...conds) : undefined;
      const [rows, [total]] = await Promise.all([
        ex
          .select()
          .from(auditLog)
          .where(where)
          .orderBy(desc(auditLog.auditNo))
          .limit(PAGE_SIZE)
          .offset(pageOffset(q.page)),
        ex.select({ n: count() }).from(auditLog).where(where),
      ]);
      return { items: rows.map(toEntry), itemsCount: total?.n ?? 0 };
    },
  };
}
export type AuditRepository = ReturnType<typeof createAuditRepository>;
