import { and, count, desc, eq, ilike, isNull, or, sql, type SQL } from 'drizzle-orm';
import { PAGE_SIZE, type SessionListQuery } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { sessions, users } from '../../db/schema/index.ts';
import { likePattern, pageOffset } from '../../http/list-query.ts';
import { userRulesColumn } from '../../db/user-rules.ts';

export type SessionRow = typeof sessions.$inferSelect & { username: string };
export type SessionListRow = SessionRow & { userRules: string[] };

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
    /**
     * Everyone's live sessions, most recently used first; search on username and address. `addressesOf` says
     * whose addresses the search may match: `all`, or only the sessions of users whose rules are all in the list
     * (so a search cannot tell where someone one may not see signed in from).
     */
    async list(
      q: SessionListQuery,
      idleSince: Date,
      addressesOf: 'all' | { selfId: string | null; rules: string[] },
      ex: Executor = db,
    ): Promise<{ rows: SessionListRow[]; count: number }> {
      const s = q.search?.trim();
      const ruleList =
        addressesOf === 'all'
          ? sql``
          : sql.join(
              addressesOf.rules.map((r) => sql`${r}`),
              sql`, `,
            );
      const ipVisible =
        addressesOf === 'all'
          ? undefined
          : or(
              addressesOf.selfId ? eq(sessions.userId, addressesOf.selfId) : undefined,
              sql`${userRulesColumn()} <@ array[${ruleList}]::text[]`,
            );
      const where = and(
        live(idleSince),
        q.userId ? eq(sessions.userId, q.userId) : undefined,
        s ? or(ilike(users.username, likePattern(s)), and(ilike(sessions.ip, likePattern(s)), ipVisible)) : undefined,
      );
      const [rows, [c]] = await Promise.all([
        ex
          .select({ ...columns, userRules: userRulesColumn() })
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
