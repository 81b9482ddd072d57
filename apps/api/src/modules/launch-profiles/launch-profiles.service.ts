import {
  LAUNCH_PROFILE_MESSAGES,
  type LaunchProfile,
  type LaunchProfileInputParsed,
  type ListQuery,
} from '@fleetdesk/contract';
import type { Database, Executor } from '../../db/client.ts';
import { ValidationError } from '../../http/errors.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import {
  PROFILE_USED_ENTITIES,
  type LaunchProfileWrite,
  type LaunchProfilesRepository,
  type ProfileRefField,
} from './launch-profiles.repository.ts';

export const LAUNCH_PROFILE_DUPLICATE = 'A launch profile with this name already exists';

/** What each reference is called in "The … does not exist". */
const REF_NOUNS: Record<ProfileRefField, string> = {
  brandId: 'brand',
  serverId: 'server',
  cloudId: 'cloud',
  domainRegistratorId: 'domain registrator',
  domainRegistratorContactId: 'registrator contact',
  dnsTemplateId: 'DNS template',
  yandexWebmasterAccountId: 'Yandex Webmaster account',
  googleSearchAccountId: 'Google account',
  'contentSource.domainId': 'domain to copy from',
  'contentSource.regionId': 'region',
};

const toWrite = (p: LaunchProfileInputParsed): LaunchProfileWrite => ({
  name: p.name,
  brandId: p.brandId,
  serverId: p.serverId,
  cloudId: p.cloudId,
  domainRegistratorId: p.domainRegistratorId,
  register: p.register,
  domainRegistratorContactId: p.domainRegistratorContactId,
  contentKind: p.contentSource.kind,
  contentDomainId: p.contentSource.kind === 'copy' ? p.contentSource.domainId : null,
  contentUrl: p.contentSource.kind === 'parse' ? p.contentSource.url : null,
  contentRegionId: p.contentSource.kind === 'parse' ? p.contentSource.regionId : null,
  dnsTemplateId: p.dnsTemplateId,
  firewallRuleIds: p.firewallRuleIds,
  sslMode: p.sslMode,
  tls13: p.tls13,
  yandexWebmasterAccountId: p.yandexWebmasterAccountId,
  googleSearchAccountId: p.googleSearchAccountId,
});

/**
 * Launch profiles: a launch's defaults. Every reference is checked before saving (an unknown id is a 400 on its
 * field); the entities a profile refers to cannot be deleted while it does (a 409 naming the profiles).
 */
export function createLaunchProfilesService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  repo: LaunchProfilesRepository;
}) {
  const { repo } = deps;
  for (const entity of PROFILE_USED_ENTITIES) deps.usage.register(entity, (id, ex) => repo.usageOf(entity, id, ex));

  const assertRefs = async (p: LaunchProfileInputParsed, ex: Executor) => {
    const refs: [ProfileRefField, string | null][] = [
      ['brandId', p.brandId],
      ['serverId', p.serverId],
      ['cloudId', p.cloudId],
      ['domainRegistratorId', p.domainRegistratorId],
      ['domainRegistratorContactId', p.domainRegistratorContactId],
      ['dnsTemplateId', p.dnsTemplateId],
      ['yandexWebmasterAccountId', p.yandexWebmasterAccountId],
      ['googleSearchAccountId', p.googleSearchAccountId],
      ['contentSource.domainId', p.contentSource.kind === 'copy' ? p.contentSource.domainId : null],
      ['contentSource.regionId', p.contentSource.kind === 'parse' ? p.contentSource.regionId : null],
    ];
    const fields: Record<string, string> = {};
    for (const [field, id] of refs) {
      if (id && !(await repo.refExists(field, id, ex)))
        fields[field] = LAUNCH_PROFILE_MESSAGES.missing(REF_NOUNS[field]);
    }
    const missingRules = await repo.missingFirewallRules(p.firewallRuleIds, ex);
    if (missingRules.length) fields.firewallRuleIds = LAUNCH_PROFILE_MESSAGES.missingFirewallRules(missingRules.length);
    const entries = Object.entries(fields);
    if (!entries.length) return;
    const [first] = entries;
    throw new ValidationError(entries.length === 1 && first ? first[1] : 'Some fields are invalid', fields);
  };

  const crud = createCrudService<LaunchProfile, LaunchProfileInputParsed, ListQuery, LaunchProfileWrite>({
    ...deps,
    entity: 'launch-profiles',
    label: 'launch profile',
    unique: { launch_profiles_name_lower_uq: { field: 'name', message: LAUNCH_PROFILE_DUPLICATE } },
    // Create and update both receive the whole profile (LaunchProfileUpdateInputSchema).
    toWrite: (input) => toWrite(input as LaunchProfileInputParsed),
    validate: (input, _current, tx) => assertRefs(input as LaunchProfileInputParsed, tx),
    snapshot: async (id, ex) => {
      const p = await repo.findById(id, ex);
      if (!p) return undefined;
      const { _id: _, launchProfileNo: __, ...fields } = p;
      return fields;
    },
  });
  return { ...crud, findById: repo.findById };
}
export type LaunchProfilesService = ReturnType<typeof createLaunchProfilesService>;
