import { and, asc, count, eq } from 'drizzle-orm';
import type { YandexWebmasterAccount } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import {
  yandexWebmasterAccounts as accounts,
  yandexWebmasterRecrawlBacklog as backlog,
} from '../../db/schema/index.ts';
import { createAccountRepository } from '../../lib/account-repository.ts';
import { maskOf } from '../../lib/secrets.ts';

export type WebmasterAccountRow = typeof accounts.$inferSelect;
export type WebmasterAccountWrite = Partial<Omit<typeof accounts.$inferInsert, 'id' | 'yandexWebmasterAccountNo'>>;

export const toAccount = (r: WebmasterAccountRow): YandexWebmasterAccount => ({
  _id: r.id,
  id: r.id,
  yandexWebmasterAccountNo: r.yandexWebmasterAccountNo,
  name: r.name,
  apiToken: maskOf(r.apiTokenEnc),
});

/** A backlog never grows past this per host: an operator pasting a huge list is refused, not stored. */
export const BACKLOG_MAX_PER_HOST = 5000;

export function createYandexWebmasterRepository(db: Db) {
  return {
    ...createAccountRepository<typeof accounts, YandexWebmasterAccount, WebmasterAccountWrite>(db, {
      table: accounts,
      search: [accounts.name],
      orderBy: accounts.yandexWebmasterAccountNo,
      toEntity: toAccount,
    }),

    // The recrawl backlog (decision 027).
    async backlogOf(accountId: string, hostId: string, ex: Executor = db) {
      return ex
        .select({ id: backlog.id, url: backlog.url, addedAt: backlog.addedAt })
        .from(backlog)
        .where(and(eq(backlog.accountId, accountId), eq(backlog.hostId, hostId)))
        .orderBy(asc(backlog.addedAt), asc(backlog.id))
        .limit(BACKLOG_MAX_PER_HOST);
    },
    async backlogSize(accountId: string, hostId: string, ex: Executor = db) {
      const [r] = await ex
        .select({ n: count() })
        .from(backlog)
        .where(and(eq(backlog.accountId, accountId), eq(backlog.hostId, hostId)));
      return r?.n ?? 0;
    },
    /** Adds a URL; false when it is already waiting. */
    async addToBacklog(accountId: string, hostId: string, url: string, ex: Executor = db) {
      const r = await ex
        .insert(backlog)
        .values({ accountId, hostId, url })
        .onConflictDoNothing()
        .returning({ id: backlog.id });
      return r.length > 0;
    },
    async removeFromBacklog(id: string, ex: Executor = db) {
      await ex.delete(backlog).where(eq(backlog.id, id));
    },
    /** Hosts with URLs waiting. */
    async backlogHosts(ex: Executor = db) {
      return ex.selectDistinct({ accountId: backlog.accountId, hostId: backlog.hostId }).from(backlog).limit(1000);
    },
  };
}
export type YandexWebmasterRepository = ReturnType<typeof createYandexWebmasterRepository>;
