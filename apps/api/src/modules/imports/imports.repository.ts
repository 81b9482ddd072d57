import { eq, inArray, sql } from 'drizzle-orm';
import { toAsciiDomain, type ImportSource, type ImportState } from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { clouds, domains, servers } from '../../db/schema/index.ts';
import { unicodeOf } from '../domains/domains.repository.ts';
import { plansOfKind, type PlanItemRow, type PlanRow, type PlansRepository } from '../plans/plans.repository.ts';

/** An import as its service reads it: the plan row with its source spelt out (kept in `selection`, `detail`). */
export type ImportPlanRow = Omit<PlanRow, 'kind' | 'selection' | 'detail' | 'total' | 'state'> & {
  state: ImportState;
  source: ImportSource;
  sourceId: string;
  sourceLabel: string;
  /** The panel users whose sites the plan read; null for sources without users. */
  sourceUsers: string[] | null;
};
export type ImportItemRow = PlanItemRow;

const importOf = (r: PlanRow): ImportPlanRow => {
  const { kind: _k, selection, detail, total: _t, ...rest } = r;
  return {
    ...rest,
    state: r.state as ImportState,
    source: selection.source as ImportSource,
    sourceId: String(selection.sourceId),
    sourceLabel: String(selection.sourceLabel),
    sourceUsers: (detail.sourceUsers as string[] | null | undefined) ?? null,
  };
};

/** What an import needs to know of a console domain of the same name. */
export type ExistingDomain = {
  id: string;
  domainName: string;
  cloudId: string | null;
  cloudEmail: string | null;
  cloudZoneId: string | null;
  serverId: string | null;
  serverIp: string | null;
  domainRegistratorId: string | null;
};

const LOOKUP_CHUNK = 5000;

export function createImportsRepository(db: Db, plans: PlansRepository) {
  const existingSelect = {
    id: domains.id,
    domainName: domains.domainName,
    cloudId: domains.cloudId,
    cloudEmail: clouds.email,
    cloudZoneId: domains.cloudZoneId,
    serverId: domains.serverId,
    serverIp: servers.ipAddress,
    domainRegistratorId: domains.domainRegistratorId,
  };
  return {
    async insertPlan(v: { source: ImportSource; sourceId: string; sourceLabel: string; createdBy: string | null }) {
      const { createdBy, ...selection } = v;
      return importOf(await plans.insertPlan('imports', { selection, createdBy }));
    },

    ...plansOfKind<ImportPlanRow, ImportState>(plans, 'imports', importOf),

    /** The names an import's run created or linked (a revert is planned from them), after item `after`. */
    doneItems: (planId: string, after: number, limit: number) =>
      plans.items(planId, { statuses: ['done'], outcomes: ['create', 'link'] }, after, limit),

    /**
     * The console's domains among these (ASCII) names, keyed by the ASCII name, with what an import compares.
     * An older record may hold its name in Unicode: it is found by that form too.
     */
    async existingByNames(names: string[]): Promise<Map<string, ExistingDomain>> {
      const out = new Map<string, ExistingDomain>();
      for (let i = 0; i < names.length; i += LOOKUP_CHUNK) {
        const chunk = names.slice(i, i + LOOKUP_CHUNK);
        const unicode = chunk.filter((n) => n.includes('xn--')).map(unicodeOf);
        const rows = await db
          .select(existingSelect)
          .from(domains)
          .leftJoin(clouds, eq(clouds.id, domains.cloudId))
          .leftJoin(servers, eq(servers.id, domains.serverId))
          .where(inArray(domains.domainName, [...new Set([...chunk, ...unicode])]));
        for (const r of rows) out.set(toAsciiDomain(r.domainName) ?? r.domainName, r);
      }
      return out;
    },

    /** The console's domains linked to these zone ids, by zone id. */
    async domainsByZoneIds(zoneIds: string[]): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      for (let i = 0; i < zoneIds.length; i += LOOKUP_CHUNK) {
        const rows = await db
          .select({ zoneId: domains.cloudZoneId, name: domains.domainName })
          .from(domains)
          .where(inArray(domains.cloudZoneId, zoneIds.slice(i, i + LOOKUP_CHUNK)));
        for (const r of rows) if (r.zoneId) out.set(r.zoneId, r.name);
      }
      return out;
    },

    /** A server's address, limit and domain count (the capacity an import fills). */
    async serverCapacity(serverId: string) {
      const [s] = await db
        .select({
          ip: servers.ipAddress,
          limit: servers.domainsLimitQty,
          qty: sql<number>`(select count(*)::int from ${domains} where ${domains.serverId} = ${serverId})`,
        })
        .from(servers)
        .where(eq(servers.id, serverId));
      return s;
    },
  };
}
export type ImportsRepository = ReturnType<typeof createImportsRepository>;
