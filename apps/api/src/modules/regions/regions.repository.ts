import type { Region } from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { regions } from '../../db/schema/index.ts';
import { createNamedRepository } from '../../lib/named-repository.ts';

export const createRegionsRepository = (db: Db) =>
  createNamedRepository<Region>(
    db,
    { table: regions, id: regions.id, no: regions.regionNo, name: regions.name },
    (r) => ({ _id: r.id, regionNo: r.no, name: r.name }),
  );
export type RegionsRepository = ReturnType<typeof createRegionsRepository>;
