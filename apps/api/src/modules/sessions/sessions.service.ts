import { SESSION_MESSAGES, type ListResult, type Session, type SessionListQuery } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { NotFoundError } from '../../http/errors.ts';
import { sessionsChanged } from '../../lib/session-cache.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { UsersRepository } from '../users/users.repository.ts';
import { ADMIN_RULE } from '@fleetdesk/contract';
import { assertHoldsAll, rulesNotHeld } from '../users/users.service.ts';
import type { SessionRow, SessionsRepository } from './sessions.repository.ts';
import { describeUserAgent } from './user-agent.ts';

/**
 * Sessions one can see and end: one's own, and (with cnv:users) anyone's whose rules one holds. Ending a session
 * revokes it; the trigger on sessions clears every process's session cache (decision 030), so its next request
 * is refused everywhere.
 */
export function createSessionsService(deps: {
  database: Database;
  repo: SessionsRepository;
  users: Pick<UsersRepository, 'rulesOf'>;
  audit: AuditService;
  idleMs: number;
}) {
  const { database, repo, audit } = deps;
  const idleSince = () => new Date(Date.now() - deps.idleMs);
  const toSession = (r: SessionRow, currentId: string | null): Session => ({
    _id: r.id,
    userId: r.userId,
    username: r.username,
    browser: describeUserAgent(r.userAgent),
    userAgent: r.userAgent,
    ip: r.ip,
    createdAt: r.createdAt.toISOString(),
    lastUsedAt: r.lastUsedAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
    current: r.id === currentId,
    twoFactorSetup: r.twoFactorSetup,
  });

  async function end(r: SessionRow, actor: Actor) {
    await database.db.transaction(async (tx) => {
      if (!(await repo.revoke(r.id, tx))) throw new NotFoundError(SESSION_MESSAGES.notFound);
      await audit.record(
        actor,
        {
          action: 'logout',
          entity: 'sessions',
          entityId: r.userId,
          details: { sessionId: r.id, ip: r.ip, endedBy: actor.userId === r.userId ? 'self' : 'administrator' },
        },
        tx,
      );
    });
    sessionsChanged(database);
  }

  return {
    async listOwn(actor: Actor, currentId: string | null): Promise<Session[]> {
      return (await repo.listForUser(actor.userId!, idleSince())).map((r) => toSession(r, currentId));
    },
    async endOwn(id: string, actor: Actor): Promise<void> {
      const r = await repo.findLive(id, idleSince());
      if (!r || r.userId !== actor.userId) throw new NotFoundError(SESSION_MESSAGES.notFound);
      await end(r, actor);
    },
    /**
     * Everyone's sessions; the address and browser of a user holding a rule the caller lacks are hidden, as the
     * subset rule (decision 017) hides that user's resets (issue 42).
     */
    async list(q: SessionListQuery, currentId: string | null, actor: Actor): Promise<ListResult<Session>> {
      const admin = actor.rules.includes(ADMIN_RULE);
      const { rows, count } = await repo.list(
        q,
        idleSince(),
        admin ? 'all' : { selfId: actor.userId, rules: actor.rules },
      );
      const visible = (r: { userId: string; userRules: string[] }) =>
        admin || r.userId === actor.userId || rulesNotHeld(actor, r.userRules).length === 0;
      return {
        items: rows.map((r) =>
          visible(r)
            ? toSession(r, currentId)
            : { ...toSession(r, currentId), browser: 'Hidden', userAgent: null, ip: null },
        ),
        itemsCount: count,
      };
    },
    /** An administrator ends anyone's session, as long as they hold every rule its user holds (decision 017). */
    async end(id: string, actor: Actor): Promise<void> {
      const r = await repo.findLive(id, idleSince());
      if (!r) throw new NotFoundError(SESSION_MESSAGES.notFound);
      if (r.userId !== actor.userId) {
        assertHoldsAll(
          actor,
          await deps.users.rulesOf(r.userId),
          "end this user's session",
          'end a session of a user holding it',
        );
      }
      await end(r, actor);
    },
  };
}
export type SessionsService = ReturnType<typeof createSessionsService>;
