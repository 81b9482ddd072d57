import type { Brand } from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { brands } from '../../db/schema/index.ts';
import { createNamedRepository } from '../../lib/named-repository.ts';

export const createBrandsRepository = (db: Db) =>
  createNamedRepository<Brand, { trafficFallPercent: number | null; indexNow: boolean }>(
    db,
    {
      table: brands,
      id: brands.id,
      no: brands.brandNo,
      name: brands.name,
      extra: { trafficFallPercent: brands.trafficFallPercent, indexNow: brands.indexNow },
    },
    (r) => ({
      _id: r.id,
      brandNo: r.no,
      name: r.name,
      trafficFallPercent: r.trafficFallPercent,
      indexNow: r.indexNow,
    }),
  );
export type BrandsRepository = ReturnType<typeof createBrandsRepository>;
