import { asc, count, eq } from 'drizzle-orm';
import type { GoogleSearchAccount } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import {
  domains,
  googleSearchAccounts as accounts,
  googleSearchProperties as properties,
} from '../../db/schema/index.ts';
import { createAccountRepository } from '../../lib/account-repository.ts';
import { maskOf } from '../../lib/secrets.ts';

export type GoogleAccountRow = typeof accounts.$inferSelect;
export type GoogleAccountWrite = Partial<Omit<typeof accounts.$inferInsert, 'id' | 'googleSearchAccountNo'>>;

export const toAccount = (r: GoogleAccountRow): GoogleSearchAccount => ({
  _id: r.id,
  id: r.id,
  googleSearchAccountNo: r.googleSearchAccountNo,
  name: r.name,
  clientEmail: r.clientEmail,
  projectId: r.projectId,
  serviceAccountKey: maskOf(r.serviceAccountKeyEnc),
});

export function createGoogleSearchRepository(db: Db) {
  return {
    ...createAccountRepository<typeof accounts, GoogleSearchAccount, GoogleAccountWrite>(db, {
      table: accounts,
      search: [accounts.name, accounts.clientEmail],
      orderBy: accounts.googleSearchAccountNo,
      toEntity: toAccount,
    }),

    // ---------------------------------------------------------------- each domain's property
    async propertyOf(domainId: string, ex: Executor = db) {
      const [r] = await ex
        .select({
          accountId: properties.accountId,
          siteUrl: properties.siteUrl,
          accountName: accounts.name,
          clientEmail: accounts.clientEmail,
        })
        .from(properties)
        .innerJoin(accounts, eq(accounts.id, properties.accountId))
        .where(eq(properties.domainId, domainId));
      return r;
    },
    /** Keeps the domain's property unless it has one already: true when this call wrote it. */
    async claimProperty(domainId: string, accountId: string, siteUrl: string, ex: Executor = db) {
      const rows = await ex
        .insert(properties)
        .values({ domainId, accountId, siteUrl })
        .onConflictDoNothing({ target: properties.domainId })
        .returning({ domainId: properties.domainId });
      return rows.length > 0;
    },
    async removeProperty(domainId: string, ex: Executor = db) {
      await ex.delete(properties).where(eq(properties.domainId, domainId));
    },
    /** The domains whose property an account holds: a count and a few names (the usage registry's check). */
    async usageOf(accountId: string, ex: Executor = db) {
      const [n] = await ex.select({ n: count() }).from(properties).where(eq(properties.accountId, accountId));
      const examples = await ex
        .select({ name: domains.domainName })
        .from(properties)
        .innerJoin(domains, eq(domains.id, properties.domainId))
        .where(eq(properties.accountId, accountId))
        .orderBy(asc(domains.domainName))
        .limit(3);
      return { what: 'domains', count: n?.n ?? 0, examples: examples.map((e) => e.name) };
    },
  };
}
export type GoogleSearchRepository = ReturnType<typeof createGoogleSearchRepository>;
