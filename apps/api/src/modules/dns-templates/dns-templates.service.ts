import type { DnsTemplate, DnsTemplateInputParsed, DnsTemplateRecord, ListQuery } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { DnsTemplateWrite, DnsTemplatesRepository } from './dns-templates.repository.ts';

export const DNS_TEMPLATE_DUPLICATE = 'A DNS template with this name already exists';

/** A record as stored: the fields the contract knows, priority only where one was given. */
const storedRecord = (r: DnsTemplateRecord): DnsTemplateRecord => ({
  type: r.type,
  name: r.name,
  content: r.content,
  ttl: r.ttl,
  proxied: r.proxied,
  ...(r.priority === undefined ? {} : { priority: r.priority }),
});

/**
 * DNS templates. The records are checked by the contract's schema (Cloudflare's rules on an example render,
 * known placeholders only), so a bad one is a 400 on its field before it reaches here. Deleting one that a launch
 * profile uses is a 409 (the launch profiles module registers the check).
 */
export function createDnsTemplatesService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  repo: DnsTemplatesRepository;
}) {
  const crud = createCrudService<DnsTemplate, DnsTemplateInputParsed, ListQuery, DnsTemplateWrite>({
    ...deps,
    entity: 'dns-templates',
    label: 'DNS template',
    unique: { dns_templates_name_lower_uq: { field: 'name', message: DNS_TEMPLATE_DUPLICATE } },
    toWrite: (input) => ({
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.records === undefined ? {} : { records: input.records.map(storedRecord) }),
    }),
    snapshot: async (id, ex) => {
      const t = await deps.repo.findById(id, ex);
      return t && { name: t.name, records: t.records };
    },
  });
  return { ...crud, exists: deps.repo.exists, findById: deps.repo.findById };
}
export type DnsTemplatesService = ReturnType<typeof createDnsTemplatesService>;
