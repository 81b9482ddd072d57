import type { ListQuery, Region, RegionInput } from '@fleetdesk/contract';
import type { Database, Executor } from '../../db/client.ts';
import { ValidationError } from '../../http/errors.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { RegionsRepository } from './regions.repository.ts';

export function createRegionsService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  repo: RegionsRepository;
}) {
  const crud = createCrudService<Region, RegionInput, ListQuery>({
    ...deps,
    entity: 'regions',
    label: 'region',
    unique: { regions_name_lower_uq: { field: 'name', message: 'A region with this name already exists' } },
  });
  return {
    ...crud,
    findByIds: deps.repo.findByIds,
    /** 400 on `field` when a referenced region is missing; nothing to check for an empty reference. */
    async assertExists(regionId: string | null | undefined, field: string, message: string, ex?: Executor) {
      if (!regionId) return;
      const [r] = await deps.repo.findByIds([regionId], ex);
      if (!r) throw new ValidationError(message, { [field]: message });
    },
  };
}
export type RegionsService = ReturnType<typeof createRegionsService>;
