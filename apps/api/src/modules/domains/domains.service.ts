import {
  DOMAIN_EXPORT_COLUMNS,
  DOMAIN_OPTIONAL_COLUMN_HEADERS,
  type Domain,
  type DomainOptionalColumn,
  type DomainCloudZonePatch,
  type DomainFilter,
  type DomainFirewallRuleDetail,
  type DomainFirewallRulesInput,
  type DomainInput,
  type DomainListQuery,
} from '@fleetdesk/contract';
import type { Database, Executor, Tx } from '../../db/client.ts';
import { isUniqueViolation, pgError } from '../../db/pg-errors.ts';
import type { Actor } from '../../http/context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { BrandsService } from '../brands/brands.service.ts';
import type { CloudsService } from '../clouds/clouds.service.ts';
import type { YandexWebmasterService } from '../yandex-webmaster/yandex-webmaster.service.ts';
import { CSV_BOM, csvLine } from './csv.ts';
import {
  unicodeOf,
  type DomainExportRow,
  type DomainRow,
  type DomainWrite,
  type DomainsRepository,
} from './domains.repository.ts';

export const DOMAIN_MESSAGES = {
  duplicate: 'A domain with this name already exists',
  notFound: 'Domain not found',
  serverMissing: 'The server does not exist',
  brandId: 'The brand does not exist',
  cloudId: 'The cloud does not exist',
  parserProxyRegionId: 'The parser proxy region does not exist',
  domainRegistratorId: 'The domain registrator does not exist',
  yandexWebmasterAccountId: 'The Yandex Webmaster account does not exist',
  ruleMissing: 'The firewall rule does not exist',
} as const;

export const serverFullMessage = (ip: string, qty: number, limit: number) =>
  `Server ${ip} is full: ${qty} of ${limit} domains`;

export const EXPORT_BATCH_SIZE = 1000;

type RefField = 'brandId' | 'cloudId' | 'parserProxyRegionId' | 'domainRegistratorId' | 'yandexWebmasterAccountId';
const REF_FIELDS: RefField[] = [
  'brandId',
  'cloudId',
  'parserProxyRegionId',
  'domainRegistratorId',
  'yandexWebmasterAccountId',
];

const toWrite = (input: Partial<DomainInput>): DomainWrite => ({
  domainName: input.domainName,
  domainNameUnicode: input.domainName === undefined ? undefined : unicodeOf(input.domainName),
  status: input.status,
  serverId: input.serverId,
  brandId: input.brandId,
  cloudId: input.cloudId,
  parserEnabled: input.parserEnabled,
  isSinglePage: input.isSinglePage,
  parserUrl: input.parserURL,
  parserProxyRegionId: input.parserProxyRegionId,
  redirectDomainName: input.redirectDomainName,
  isRestricted: input.isRestricted,
  domainRegistratorId: input.domainRegistratorId,
  domainRegistratorExpirationDate: input.domainRegistratorExpirationDate,
  yandexWebmasterAccountId: input.yandexWebmasterAccountId,
});

/** What the audit trail compares: the stored fields, references by id. */
const snapshotOf = (r: DomainRow | Domain) => ({
  domainName: r.domainName,
  status: r.status,
  serverId: r.serverId,
  brandId: r.brandId,
  cloudId: r.cloudId,
  cloudZoneId: r.cloudZoneId,
  cloudRulesetId: r.cloudRulesetId,
  parserEnabled: r.parserEnabled,
  isSinglePage: r.isSinglePage,
  parserURL: 'parserUrl' in r ? r.parserUrl : r.parserURL,
  parserProxyRegionId: r.parserProxyRegionId,
  redirectDomainName: r.redirectDomainName,
  isRestricted: r.isRestricted,
  domainRegistratorId: r.domainRegistratorId,
  domainRegistratorExpirationDate: r.domainRegistratorExpirationDate,
  yandexWebmasterAccountId: r.yandexWebmasterAccountId,
});

export function createDomainsService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  repo: DomainsRepository;
  clouds: Pick<CloudsService, 'setInUseCheck'>;
  brands: Pick<BrandsService, 'setInUseCheck'>;
  webmasterAccounts?: Pick<YandexWebmasterService, 'setInUseCheck'>;
}) {
  const { database, audit, usage, repo } = deps;

  // Deleting anything a domain refers to is refused while a domain uses it (409 naming the domains).
  usage.register('servers', (id, ex) => repo.usageOf('serverId', id, ex));
  usage.register('brands', (id, ex) => repo.usageOf('brandId', id, ex));
  usage.register('clouds', (id, ex) => repo.usageOf('cloudId', id, ex));
  usage.register('regions', (id, ex) => repo.usageOf('parserProxyRegionId', id, ex));
  usage.register('domain-registrators', (id, ex) => repo.usageOf('domainRegistratorId', id, ex));
  usage.register('firewall-rules', (id, ex) => repo.usageOfFirewallRule(id, ex));
  usage.register('yandex-webmaster', (id, ex) => repo.usageOf('yandexWebmasterAccountId', id, ex));

  // In-use marks: a cloud (or webmaster account) that another domain of the same brand already uses.
  deps.clouds.setInUseCheck((cloudIds, brandId, exceptDomainId) => repo.cloudsInUse(cloudIds, brandId, exceptDomainId));
  deps.webmasterAccounts?.setInUseCheck((ids, brandId, exceptDomainId) =>
    repo.webmasterAccountsInUse(ids, brandId, exceptDomainId),
  );
  deps.brands.setInUseCheck(async (brandIds, q) => ({
    cloud: q.checkInUseCloudId
      ? await repo.brandsInUse(brandIds, {
          field: 'cloudId',
          id: q.checkInUseCloudId,
          exceptDomainId: q.checkInUseCloudIdDomainId,
        })
      : new Set<string>(),
    webmaster: q.checkInUseYandexWebmasterAccountId
      ? await repo.brandsInUse(brandIds, {
          field: 'yandexWebmasterAccountId',
          id: q.checkInUseYandexWebmasterAccountId,
          exceptDomainId: q.checkInUseYandexWebmasterAccountIdDomainId,
        })
      : new Set<string>(),
  }));

  /**
   * Capacity: moving a domain onto a server (or creating one there) needs a free place. The server row is
   * locked until commit, so two concurrent assignments cannot both take the last place. Staying on the
   * current server is always allowed, even when the limit was lowered below the count. A limit of 0 means no
   * limit (docs/decisions/006-server-capacity-zero.md).
   */
  const checkServer = async (serverId: string | null | undefined, current: Domain | undefined, tx: Tx) => {
    if (!serverId || serverId === current?.serverId) return;
    const s = await repo.lockServerCapacity(serverId, tx);
    if (!s) throw new ValidationError(DOMAIN_MESSAGES.serverMissing, { serverId: DOMAIN_MESSAGES.serverMissing });
    if (s.limit > 0 && s.qty >= s.limit) {
      const message = serverFullMessage(s.ipAddress, s.qty, s.limit);
      throw new ConflictError(message, { serverId: message }, 'server_full');
    }
  };

  const checkRefs = async (input: Partial<DomainInput>, tx: Tx) => {
    const refs = Object.fromEntries(REF_FIELDS.map((f) => [f, input[f]]));
    const missing = (await repo.missingRefs(refs, tx)) as RefField[];
    if (!missing.length) return;
    const fields = Object.fromEntries(missing.map((f) => [f, DOMAIN_MESSAGES[f]]));
    throw new ValidationError(
      missing.length === 1 ? DOMAIN_MESSAGES[missing[0]!] : 'Some references do not exist',
      fields,
    );
  };

  const crud = createCrudService<
    Domain,
    DomainInput,
    DomainListQuery,
    DomainWrite & { domainName: string; domainNameUnicode: string }
  >({
    database,
    audit,
    usage,
    repo,
    entity: 'domains',
    label: 'domain',
    unique: { domains_domain_name_uq: { field: 'domainName', message: DOMAIN_MESSAGES.duplicate } },
    toWrite,
    validate: async (input, current, tx) => {
      await checkRefs(input, tx);
      await checkServer(input.serverId, current, tx);
    },
    snapshot: async (id: string, ex: Executor) => {
      const r = await repo.findRow(id, ex);
      return r && snapshotOf(r);
    },
    // The form's writes read the domain before and after anyway: their snapshots come from those reads.
    snapshotOf,
  });

  /** Audited change of the domain row outside the form (the Cloudflare actions). */
  const changeRow = async (id: string, actor: Actor, action: string, values: DomainWrite) =>
    database.db.transaction(async (tx) => {
      const before = await repo.findRow(id, tx);
      if (!before) throw new NotFoundError(DOMAIN_MESSAGES.notFound);
      await repo.update(id, values, tx);
      const after = (await repo.findRow(id, tx))!;
      await audit.record(
        actor,
        { action, entity: 'domains', entityId: id, before: snapshotOf(before), after: snapshotOf(after) },
        tx,
      );
    });

  return {
    ...crud,

    /** Written by the Cloudflare actions (create, link, unlink and delete zone; push firewall rules). */
    async setCloudZone(id: string, patch: DomainCloudZonePatch, actor: Actor): Promise<Domain> {
      await changeRow(id, actor, 'set_cloud_zone', {
        cloudZoneId: patch.cloudZoneId,
        cloudRulesetId: patch.cloudRulesetId,
      });
      return crud.get(id);
    },

    /**
     * Puts back a domain a revert removed, under its own id (its history stays its own), with the fields it had and
     * its zone link; checked and audited as a creation. A name taken since is a 409 (the revert's row says so).
     */
    async restoreRemoved(
      id: string,
      input: DomainInput & { cloudZoneId?: string | null },
      actor: Actor,
    ): Promise<Domain> {
      const { cloudZoneId, ...fields } = input;
      await database.db
        .transaction(async (tx) => {
          await checkRefs(fields, tx);
          await checkServer(fields.serverId, undefined, tx);
          const write = toWrite(fields) as DomainWrite & { domainName: string; domainNameUnicode: string };
          await repo.insert({ ...write, id, cloudZoneId: cloudZoneId ?? null }, tx);
          const after = await repo.findRow(id, tx);
          await audit.record(
            actor,
            { action: 'create', entity: 'domains', entityId: id, before: null, after: after && snapshotOf(after) },
            tx,
          );
        })
        .catch((err: unknown) => {
          if (isUniqueViolation(err) && pgError(err)?.constraint === 'domains_domain_name_uq')
            throw new ConflictError(DOMAIN_MESSAGES.duplicate, { domainName: DOMAIN_MESSAGES.duplicate });
          throw err;
        });
      return crud.get(id);
    },

    /** Written by the registrar: the expiration date Namecheap reports (audited like any change). */
    async setRegistratorExpiration(id: string, date: string | null, actor: Actor): Promise<void> {
      await changeRow(id, actor, 'set_registrator_expiration', { domainRegistratorExpirationDate: date });
    },

    idsByNames: (names: string[]) => repo.idsByNames(names),
    byZoneIds: (zoneIds: string[]) => repo.byZoneIds(zoneIds),
    /** Whole domains by id, in one read (missing ids left out). */
    getMany: (ids: string[]) => repo.findByIds(ids),
    /** The ids matching the filter, in list order, at most `limit` ("select all N matching"). */
    listIds: (filter: Partial<DomainFilter>, limit: number) => repo.listIds(filter, limit),

    async getFirewallRules(id: string): Promise<DomainFirewallRuleDetail[]> {
      if (!(await repo.findRow(id))) throw new NotFoundError(DOMAIN_MESSAGES.notFound);
      return repo.firewallRules(id);
    },

    /**
     * Stores the domain's WAF rule set (Setup WAF). A repeated rule is kept once, the first one winning; an
     * unknown template is a 400 naming its row. Pushing the set to Cloudflare is the update-firewall-rules action.
     */
    async saveFirewallRules(id: string, input: DomainFirewallRulesInput, actor: Actor) {
      const seen = new Set<string>();
      const rules = input.cloudFirewallRules.filter((r) => !seen.has(r.ruleId) && !!seen.add(r.ruleId));
      return database.db.transaction(async (tx) => {
        if (!(await repo.lockDomain(id, tx))) throw new NotFoundError(DOMAIN_MESSAGES.notFound);
        const exists = await repo.existingFirewallRuleIds([...seen], tx);
        const fields: Record<string, string> = {};
        input.cloudFirewallRules.forEach((r, i) => {
          if (!exists.has(r.ruleId)) fields[`cloudFirewallRules.${i}.ruleId`] = DOMAIN_MESSAGES.ruleMissing;
        });
        if (Object.keys(fields).length) throw new ValidationError(DOMAIN_MESSAGES.ruleMissing, fields);
        const before = await repo.firewallRules(id, tx);
        await repo.replaceFirewallRules(id, rules, tx);
        const after = await repo.firewallRules(id, tx);
        const brief = (list: DomainFirewallRuleDetail[]) =>
          list.map((r) => ({ ruleId: r.ruleId, priority: r.priority }));
        await audit.record(
          actor,
          {
            action: 'set_firewall_rules',
            entity: 'domains',
            entityId: id,
            before: { cloudFirewallRules: brief(before) },
            after: { cloudFirewallRules: brief(after) },
          },
          tx,
        );
        return after;
      });
    },

    /**
     * The CSV export, produced batch by batch (keyset pagination on the domain number), so memory stays
     * flat at any size. The first chunk is the header row. The list's search and filters apply.
     */
    async *exportCsv(
      query: Partial<DomainFilter> & { columns?: readonly DomainOptionalColumn[] },
      opts: { batchSize?: number } = {},
    ): AsyncGenerator<string> {
      const { columns, ...filter } = query;
      const batchSize = opts.batchSize ?? EXPORT_BATCH_SIZE;
      // Without a choice, every column (the export as it always was); with one, the spec's and the chosen ones.
      const optional: Record<DomainOptionalColumn, (r: DomainExportRow) => (string | null)[]> = {
        server: (r) => [r.serverIp],
        brand: (r) => [r.brandName],
        cloud: (r) => [r.cloudEmail, r.cloudZoneId],
        registrator: (r) => [r.registratorName],
        yandexAccount: (r) => [r.yandexAccountName],
      };
      const header = columns
        ? [...DOMAIN_EXPORT_COLUMNS.slice(0, 7), ...columns.flatMap((c) => DOMAIN_OPTIONAL_COLUMN_HEADERS[c])]
        : DOMAIN_EXPORT_COLUMNS;
      const lineOf = (r: DomainExportRow) => {
        const base = [
          r.domainNo,
          r.domainNameUnicode,
          r.domainName,
          r.redirectDomainName === null ? null : unicodeOf(r.redirectDomainName),
          r.expirationDate,
          r.isRestricted ? 'Yes' : '',
          r.status,
        ];
        if (columns) return csvLine([...base, ...columns.flatMap((c) => optional[c](r))]);
        return csvLine([...base, r.serverIp, r.brandName, r.cloudEmail, r.registratorName, r.cloudZoneId]);
      };
      let after = 0;
      // The first batch is read before the first chunk: a failure there is still a proper error status.
      let rows = await repo.exportBatch(filter, after, batchSize);
      yield CSV_BOM + csvLine(header);
      for (;;) {
        if (!rows.length) return;
        yield rows.map(lineOf).join('');
        if (rows.length < batchSize) return;
        after = rows[rows.length - 1]!.domainNo;
        rows = await repo.exportBatch(filter, after, batchSize);
      }
    },
  };
}
export type DomainsService = ReturnType<typeof createDomainsService>;
