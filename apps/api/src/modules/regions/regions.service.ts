import type { ListQuery, Region, RegionInput } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
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
  return { ...crud, findByIds: deps.repo.findByIds };
}
export type RegionsService = ReturnType<typeof createRegionsService>;
