import type { DnsTemplate, DnsTemplateInput, DnsTemplateRecord } from '@fleetdesk/contract';
import { createResourceHooks } from '../../lib/resource.ts';
import { resourcePaths } from '../../lib/resource-paths.ts';

export const dnsTemplatesApi = createResourceHooks<DnsTemplate, DnsTemplateInput>('dns-templates', { update: 'PUT' });

export const dnsTemplatePaths = resourcePaths('dns-templates');

/** A record row as the form holds it: TTL and priority as the inputs' text. */
export type DnsTemplateRecordValues = {
  type: string;
  name: string;
  content: string;
  ttl: string;
  proxied: boolean;
  priority: string;
};
export type DnsTemplateFormValues = { name: string; records: DnsTemplateRecordValues[] };

export const NEW_RECORD: DnsTemplateRecordValues = {
  type: 'A',
  name: '@',
  content: '{serverIp}',
  ttl: '1',
  proxied: true,
  priority: '',
};

export const toRecordValues = (r: DnsTemplateRecord): DnsTemplateRecordValues => ({
  type: r.type,
  name: r.name,
  content: r.content,
  ttl: String(r.ttl),
  proxied: r.proxied,
  priority: r.priority === undefined ? '' : String(r.priority),
});

/** "A @ → {serverIp}", for lists and pickers. */
export const recordSummary = (r: Pick<DnsTemplateRecord, 'type' | 'name' | 'content'>) =>
  `${r.type} ${r.name} → ${r.content}`;
