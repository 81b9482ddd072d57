import { and, count, desc, eq, ilike, isNull, or, sql, type SQL } from 'drizzle-orm';
import { PAGE_SIZE, type SessionListQuery } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { sessions, users } from '../../db/schema/index.ts';
import { likePattern, pageOffset } from '../../http/list-query.ts';

export type SessionRow = typeof sessions.$inferSelect & { username: string };

const columns = {
  id: sessions.id,
  tokenHash: sessions.tokenHash,
  userId: sessions.userId,
  createdAt: sessions.createdAt,
  lastUsedAt: sessions.lastUsedAt,
  expiresAt: sessions.expiresAt,
  revokedAt: sessions.revokedAt,
  ip: sessions.ip,
  userAgent: sessions.userAgent,
  twoFactorSetup: sessions.twoFactorSetup,
  username: users.username,
};

/** Sessions that can still be used: not revoked, within both limits, of an active user. */
const live = (idleSince: Date): SQL =>
  and(
    isNull(sessions.revokedAt),
    sql`${sessions.expiresAt} > now()`,
    sql`${sessions.lastUsedAt} > ${idleSince.toISOString()}`,
    eq(users.status, 'active'),
  )!;

export function createSessionsRepository(db: Db) {
  return {
    async listForUser(userId: string, idleSince: Date, ex: Executor = db): Promise<SessionRow[]> {
      return ex
        .select(columns)
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.userId, userId), live(idleSince)))
        .orderBy(desc(sessions.lastUsedAt))
        .limit(500);
    },
    /** Everyone's live sessions, most recently used first; search on username and address. */
    async list(q: SessionListQuery, idleSince: Date, ex: Executor = db) {
      const s = q.search?.trim();
      const where = and(
        live(idleSince),
        q.userId ? eq(sessions.userId, q.userId) : undefined,
        s ? or(ilike(users.username, likePattern(s)), ilike(sessions.ip, likePattern(s))) : undefined,
      );
      const [rows, [c]] = await Promise.all([
        ex
          .select(columns)
          .from(sessions)
          .innerJoin(users, eq(users.id, sessions.userId))
          .where(where)
          .orderBy(desc(sessions.lastUsedAt), desc(sessions.id))
          .limit(PAGE_SIZE)
          .offset(pageOffset(q.page)),
        ex.select({ n: count() }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(where),
      ]);
      return { rows, count: c?.n ?? 0 };
    },
    async findLive(id: string, idleSince: Date, ex: Executor = db): Promise<SessionRow | undefined> {
      const [r] = await ex
        .select(columns)
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.id, id), live(idleSince)));
      return r;
    },
    /** Ends the session; the trigger on sessions tells every process (decision 030). */
    async revoke(id: string, ex: Executor = db): Promise<boolean> {
      const r = await ex
        .update(sessions)
        .set({ revokedAt: new Date() })
        .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      return r.length > 0;
    },
  };
}
export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
