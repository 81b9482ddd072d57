import type { AlertRule, AlertRuleInput, ListQuery } from '@fleetdesk/contract';
import type { Database, Tx } from '../../db/client.ts';
import { ValidationError } from '../../http/errors.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { BrandsService } from '../brands/brands.service.ts';
import type { AlertRulesRepository, RuleWrite } from './alert-rules.repository.ts';

export function createAlertRulesService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  repo: AlertRulesRepository;
  brands: BrandsService;
}) {
  const { repo } = deps;
  deps.usage.register('brands', async (brandId, ex) => ({
    what: 'alert rules',
    ...(await repo.usageOfBrand(brandId, ex)),
  }));

  const toWrite = (i: Partial<AlertRuleInput>): RuleWrite => {
    const w: RuleWrite = {};
    for (const k of [
      'name',
      'enabled',
      'events',
      'expiryDays',
      'healthMinutes',
      'scope',
      'brandId',
      'channelIds',
      'minSeverity',
      'reminderMinutes',
      'quietStart',
      'quietEnd',
      'timeZone',
    ] as const) {
      if (i[k] !== undefined) (w as Record<string, unknown>)[k] = i[k];
    }
    if (i.filter !== undefined) w.filter = i.filter as Record<string, unknown> | null;
    // Only the scope's own reference is kept, so a rule never holds a stale brand or filter.
    const scope = i.scope;
    if (scope === 'all') Object.assign(w, { brandId: null, filter: null });
    if (scope === 'brand') w.filter = null;
    if (scope === 'filter') w.brandId = null;
    return w;
  };

  const validate = async (i: Partial<AlertRuleInput>, current: AlertRule | undefined, tx: Tx) => {
    const fields: Record<string, string> = {};
    const scope = i.scope ?? current?.scope ?? 'all';
    const brandId = i.brandId !== undefined ? i.brandId : (current?.brand?._id ?? null);
    const filter = i.filter !== undefined ? i.filter : (current?.filter ?? null);
    if (scope === 'brand') {
      if (!brandId) fields.brandId = 'Choose a brand for this scope';
      else if (!(await deps.brands.findByIds([brandId], tx)).length) fields.brandId = 'The brand does not exist';
    }
    if (scope === 'filter' && (!filter || !Object.keys(filter).length))
      fields.filter = 'Paste the domains list filter (its address or query) for this scope';
    if (i.channelIds) {
      const found = new Set(await repo.channelsExist(i.channelIds, tx));
      if (i.channelIds.some((id) => !found.has(id))) fields.channelIds = 'A chosen channel does not exist';
    }
    const qs = i.quietStart !== undefined ? i.quietStart : (current?.quietStart ?? null);
    const qe = i.quietEnd !== undefined ? i.quietEnd : (current?.quietEnd ?? null);
    const tz = i.timeZone !== undefined ? i.timeZone : (current?.timeZone ?? null);
    if (!!qs !== !!qe) fields[qs ? 'quietEnd' : 'quietStart'] = 'Quiet hours need both a start and an end';
    if (qs && qe && qs === qe) fields.quietEnd = 'Quiet hours must not start and end at the same time';
    if (qs && !tz) fields.timeZone = 'Quiet hours need a time zone';
    if (Object.keys(fields).length) throw new ValidationError('Some fields need attention', fields);
  };

  return createCrudService<AlertRule, AlertRuleInput, ListQuery, RuleWrite>({
    database: deps.database,
    audit: deps.audit,
    usage: deps.usage,
    repo,
    entity: 'alert-rules',
    label: 'alert rule',
    unique: { alert_rules_name_uq: { field: 'name', message: 'A rule with this name already exists' } },
    toWrite,
    validate,
  });
}
export type AlertRulesService = ReturnType<typeof createAlertRulesService>;
