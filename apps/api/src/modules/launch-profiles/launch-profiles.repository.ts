import { type SQL, arrayContains, asc, eq, inArray, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { ContentSource, LaunchProfile, ListQuery, ListResult } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import {
  brands,
  clouds,
  dnsTemplates,
  domainRegistratorContacts,
  domainRegistrators,
  domains,
  firewallRules,
  launchProfiles,
  regions,
  servers,
  yandexWebmasterAccounts,
  googleSearchAccounts,
} from '../../db/schema/index.ts';
import { tableList } from '../../http/list-query.ts';
import type { Usage } from '../../lib/usage.ts';

export type LaunchProfileRow = typeof launchProfiles.$inferSelect;
export type LaunchProfileWrite = Omit<typeof launchProfiles.$inferInsert, 'id' | 'launchProfileNo'>;

const contentOf = (r: LaunchProfileRow): ContentSource =>
  r.contentKind === 'copy' && r.contentDomainId
    ? { kind: 'copy', domainId: r.contentDomainId }
    : r.contentKind === 'parse' && r.contentUrl && r.contentRegionId
      ? { kind: 'parse', url: r.contentUrl, regionId: r.contentRegionId }
      : { kind: 'none' };

export const toLaunchProfile = (r: LaunchProfileRow): LaunchProfile => ({
  _id: r.id,
  launchProfileNo: r.launchProfileNo,
  name: r.name,
  brandId: r.brandId,
  serverId: r.serverId,
  cloudId: r.cloudId,
  domainRegistratorId: r.domainRegistratorId,
  register: r.register,
  domainRegistratorContactId: r.domainRegistratorContactId,
  contentSource: contentOf(r),
  dnsTemplateId: r.dnsTemplateId,
  firewallRuleIds: r.firewallRuleIds,
  sslMode: r.sslMode,
  tls13: r.tls13,
  yandexWebmasterAccountId: r.yandexWebmasterAccountId,
  googleSearchAccountId: r.googleSearchAccountId,
});

/** The tables a profile refers to, by the input's field, for the existence checks. */
export const PROFILE_REFS = {
  brandId: [brands, brands.id],
  serverId: [servers, servers.id],
  cloudId: [clouds, clouds.id],
  domainRegistratorId: [domainRegistrators, domainRegistrators.id],
  domainRegistratorContactId: [domainRegistratorContacts, domainRegistratorContacts.id],
  dnsTemplateId: [dnsTemplates, dnsTemplates.id],
  yandexWebmasterAccountId: [yandexWebmasterAccounts, yandexWebmasterAccounts.id],
  googleSearchAccountId: [googleSearchAccounts, googleSearchAccounts.id],
  'contentSource.domainId': [domains, domains.id],
  'contentSource.regionId': [regions, regions.id],
} as const satisfies Record<string, readonly [PgTable, PgColumn]>;
export type ProfileRefField = keyof typeof PROFILE_REFS;

/** The profile columns other entities are used through, by the entity's name in the usage registry. */
const USED_THROUGH = {
  brands: launchProfiles.brandId,
  servers: launchProfiles.serverId,
  clouds: launchProfiles.cloudId,
  'domain-registrators': launchProfiles.domainRegistratorId,
  'domain-registrators-contacts': launchProfiles.domainRegistratorContactId,
  'dns-templates': launchProfiles.dnsTemplateId,
  'yandex-webmaster': launchProfiles.yandexWebmasterAccountId,
  'google-search': launchProfiles.googleSearchAccountId,
  domains: launchProfiles.contentDomainId,
  regions: launchProfiles.contentRegionId,
} as const;
export const PROFILE_USED_ENTITIES = [...Object.keys(USED_THROUGH), 'firewall-rules'] as const;

export function createLaunchProfilesRepository(db: Db) {
  const page = tableList(db, 'fd_launch_profiles', launchProfiles, {
    search: [launchProfiles.name],
    orderBy: launchProfiles.launchProfileNo,
  });
  const findById = async (id: string, ex: Executor = db): Promise<LaunchProfile | undefined> => {
    const [r] = await ex.select().from(launchProfiles).where(eq(launchProfiles.id, id));
    return r ? toLaunchProfile(r) : undefined;
  };
  const usage = async (where: SQL, ex: Executor): Promise<Usage> => {
    const rows = await ex
      .select({ name: launchProfiles.name, n: sql<number>`count(*) over ()` })
      .from(launchProfiles)
      .where(where)
      .orderBy(asc(launchProfiles.launchProfileNo))
      .limit(3);
    return { what: 'launch profiles', count: Number(rows[0]?.n ?? 0), examples: rows.map((r) => r.name) };
  };
  return {
    async list(q: ListQuery, ex: Executor = db): Promise<ListResult<LaunchProfile>> {
      const { rows, count } = await page(q, ex);
      return { items: rows.map(toLaunchProfile), itemsCount: count };
    },
    findById,
    /** True when the row the field refers to exists. */
    async refExists(field: ProfileRefField, id: string, ex: Executor = db): Promise<boolean> {
      const [table, col] = PROFILE_REFS[field] as readonly [PgTable, PgColumn];
      const [r] = await ex.select({ id: col }).from(table).where(eq(col, id));
      return !!r;
    },
    /** Of these firewall rules, the ids that do not exist. */
    async missingFirewallRules(ids: string[], ex: Executor = db): Promise<string[]> {
      if (!ids.length) return [];
      const rows = await ex.select({ id: firewallRules.id }).from(firewallRules).where(inArray(firewallRules.id, ids));
      const found = new Set(rows.map((r) => r.id));
      return ids.filter((id) => !found.has(id));
    },
    usageOf(entity: string, id: string, ex: Executor = db): Promise<Usage> {
      if (entity === 'firewall-rules') return usage(arrayContains(launchProfiles.firewallRuleIds, [id]), ex);
      const col = USED_THROUGH[entity as keyof typeof USED_THROUGH];
      return usage(eq(col, id), ex);
    },
    async insert(values: LaunchProfileWrite, ex: Executor = db): Promise<string> {
      const [r] = await ex.insert(launchProfiles).values(values).returning({ id: launchProfiles.id });
      return r!.id;
    },
    async update(id: string, values: Partial<LaunchProfileWrite>, ex: Executor = db): Promise<boolean> {
      const r = await ex
        .update(launchProfiles)
        .set({ ...values, updatedAt: sql`now()` as unknown as Date })
        .where(eq(launchProfiles.id, id))
        .returning({ id: launchProfiles.id });
      return r.length > 0;
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      const r = await ex.delete(launchProfiles).where(eq(launchProfiles.id, id)).returning({ id: launchProfiles.id });
      return r.length > 0;
    },
  };
}
export type LaunchProfilesRepository = ReturnType<typeof createLaunchProfilesRepository>;
