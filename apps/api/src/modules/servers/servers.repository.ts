import { asc, eq, sql } from 'drizzle-orm';
import { PAGE_SIZE, type ListResult, type Server, type ServerListQuery } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { domains, servers } from '../../db/schema/index.ts';
import { ilikeAny, searchList, type Buildable } from '../../http/list-query.ts';
import { maskOf } from '../../lib/secrets.ts';

export type ServerRow = typeof servers.$inferSelect;
export type ServerWrite = Partial<Omit<typeof servers.$inferInsert, 'id' | 'serverNo'>>;

/**
 * domainsQty is counted from the domains assigned to the server. Until the domains table exists, a
 * server has none; the domains module supplies the counting SQL through `setDomainsQtySql`.
 */
let domainsQtySql = (_serverId: unknown) => sql<number>`0`;

export const toServer = (s: ServerRow, domainsQty: number): Server => ({
  _id: s.id,
  serverNo: s.serverNo,
  IPAddress: s.ipAddress,
  email: s.email,
  domainsLimitQty: s.domainsLimitQty,
  username: s.username,
  sshPort: s.sshPort,
  domainsPath: s.domainsPath,
  ispmanagerUri: s.ispmanagerUri,
  ispmanagerUsername: s.ispmanagerUsername,
  ispmanagerPassword: maskOf(s.ispmanagerPasswordEnc),
  ispmanagerAcceptSelfSigned: s.ispmanagerAcceptSelfSigned,
  directAdminUri: s.directAdminUri,
  directAdminUsername: s.directAdminUsername,
  directAdminPassword: maskOf(s.directAdminPasswordEnc),
  domainsQty: Number(domainsQty),
  status: s.status,
  freeSpace: s.freeSpaceBytes,
  totalSpace: s.totalSpaceBytes,
  checkedAt: s.checkedAt?.toISOString() ?? null,
  checkError: s.checkError,
  rsaKeySet: !!s.rsaKeyEnc,
  rsaKeyType: s.rsaKeyType,
  rsaKeyFingerprint: s.rsaKeyFingerprint,
  hostKeyFingerprint: s.hostKeyFingerprint,
});

export function createServersRepository(db: Db) {
  const base = (ex: Executor) => ex.select({ s: servers, qty: domainsQtySql(servers.id) }).from(servers);
  type Counted = { s: ServerRow; qty: number };
  const page = searchList<Counted>(db, {
    name: 'fd_servers',
    from: servers,
    // The page shows each server's domain count.
    tables: [servers, domains],
    search: (p) => ilikeAny([servers.ipAddress, servers.email], p),
    filter: (status) => sql`${servers.status} = ${status}`,
    rows: (ex, where, offset, v) =>
      ex
        .select({ s: servers, qty: domainsQtySql(servers.id), ...v })
        .from(servers)
        .where(where)
        .orderBy(asc(servers.serverNo))
        .limit(PAGE_SIZE)
        .offset(offset as number) as unknown as Buildable<Counted & { v: string }>,
  });
  return {
    setDomainsQtySql(fn: (serverId: unknown) => ReturnType<typeof sql<number>>) {
      domainsQtySql = fn;
    },
    async list(q: ServerListQuery, ex: Executor = db): Promise<ListResult<Server>> {
      const { rows, count: total } = await page({ ...q, filter: q.status }, ex);
      return { items: rows.map((r) => toServer(r.s, r.qty)), itemsCount: total };
    },
    async findById(id: string, ex: Executor = db): Promise<Server | undefined> {
      const [r] = await base(ex).where(eq(servers.id, id));
      return r ? toServer(r.s, r.qty) : undefined;
    },
    async findRow(id: string, ex: Executor = db): Promise<ServerRow | undefined> {
      const [r] = await ex.select().from(servers).where(eq(servers.id, id));
      return r;
    },
    async insert(values: ServerWrite & { ipAddress: string }, ex: Executor = db): Promise<string> {
      const [r] = await ex.insert(servers).values(values).returning({ id: servers.id });
      return r!.id;
    },
    async update(id: string, values: ServerWrite, ex: Executor = db) {
      if (!Object.keys(values).length) return;
      await ex.update(servers).set(values).where(eq(servers.id, id));
    },
    /** Every id in number order, for the periodic health check. */
    async allIds(ex: Executor = db): Promise<string[]> {
      const rows = await ex.select({ id: servers.id }).from(servers).orderBy(asc(servers.serverNo));
      return rows.map((r) => r.id);
    },
    async delete(id: string, ex: Executor = db): Promise<boolean> {
      const r = await ex.delete(servers).where(eq(servers.id, id)).returning({ id: servers.id });
      return r.length > 0;
    },
  };
}
export type ServersRepository = ReturnType<typeof createServersRepository>;
