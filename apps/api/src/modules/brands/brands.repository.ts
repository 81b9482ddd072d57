import type { Brand } from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { brands } from '../../db/schema/index.ts';
import { createNamedRepository } from '../../lib/named-repository.ts';

export const createBrandsRepository = (db: Db) =>
  createNamedRepository<Brand, { trafficFallPercent: number | null }>(
    db,
    {
      table: brands,
      id: brands.id,
      no: brands.brandNo,
      name: brands.name,
      extra: { trafficFallPercent: brands.trafficFallPercent },
    },
    (r) => ({ _id: r.id, brandNo: r.no, name: r.name, trafficFallPercent: r.trafficFallPercent }),
  );
export type BrandsRepository = ReturnType<typeof createBrandsRepository>;
