import type { Brand, BrandInput, BrandListQuery } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { BrandsRepository } from './brands.repository.ts';

/**
 * Marks brands in use: given the other side of a check (a cloud or a webmaster account) and the domain
 * being edited, returns the ids of brands that another domain links to it. Registered by the domains module.
 */
export type BrandInUseCheck = (
  brandIds: string[],
  q: BrandListQuery,
) => Promise<{ cloud: Set<string>; webmaster: Set<string> }>;

export function createBrandsService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  repo: BrandsRepository;
}) {
  const crud = createCrudService<Brand, BrandInput, BrandListQuery>({
    ...deps,
    entity: 'brands',
    label: 'brand',
    unique: { brands_name_lower_uq: { field: 'name', message: 'A brand with this name already exists' } },
  });
  let inUseCheck: BrandInUseCheck | undefined;
  return {
    ...crud,
    findByIds: deps.repo.findByIds,
    setInUseCheck(check: BrandInUseCheck) {
      inUseCheck = check;
    },
    async list(q: BrandListQuery) {
      const result = await crud.list(q);
      const wantsCloud = !!q.checkInUseCloudId;
      const wantsWebmaster = !!q.checkInUseYandexWebmasterAccountId;
      if (!wantsCloud && !wantsWebmaster) return result;
      const marks = inUseCheck
        ? await inUseCheck(
            result.items.map((b) => b._id),
            q,
          )
        : { cloud: new Set<string>(), webmaster: new Set<string>() };
      return {
        ...result,
        items: result.items.map((b) => ({
          ...b,
          ...(wantsCloud ? { isInUseCloudId: marks.cloud.has(b._id) } : {}),
          ...(wantsWebmaster ? { isInUseYandexWebmasterAccountId: marks.webmaster.has(b._id) } : {}),
        })),
      };
    },
  };
}
export type BrandsService = ReturnType<typeof createBrandsService>;
