import type { Dispatcher } from 'undici';
import {
  dnsRecordProblems,
  CLOUD_FLARE_MESSAGES,
  CLOUD_ZONE_EXISTS_CODE,
  CLOUD_ZONES_PAGE_SIZE,
  DEFAULT_REDIRECT_STATUS_CODE,
  FLEETDESK_RULE_DESCRIPTION_PREFIX,
  FLEETDESK_RULE_REF_PREFIX,
  type CloudZoneInfo,
  type CloudZoneList,
  type CloudZonesQuery,
  type CreateZoneResult,
  type DnsChanges,
  type DnsChangesResult,
  type DnsRecord,
  type Domain,
  type PurgeCacheResult,
  type RedirectRules,
  type RedirectRulesResult,
  type SslMode,
  type Tls13Mode,
  type UpdateFirewallRulesResult,
  type ZoneSetting,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { AppError, ConflictError, UpstreamError, ValidationError } from '../../http/errors.ts';
import {
  DnsBatchPartError,
  type CfDnsBatch,
  type CfDnsRecord,
  type CfRule,
  type CfRuleInput,
  type CfRuleset,
  type CfRulesetPhase,
  type CfSetting,
  type CloudflareClient,
  type CloudflareCredentials,
} from '../../integrations/cloudflare/index.ts';
import { createProxyDispatcher } from '../../integrations/proxy/index.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { CloudsService } from '../clouds/clouds.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { ProxiesService } from '../proxies/proxies.service.ts';
import type { CloudflareRouting, RouteFor } from './cloudflare-routing.ts';
import { createZoneLocks, type ZoneLocks } from './zone-lock.ts';

export const WAF_PHASE = 'http_request_firewall_custom';
export const REDIRECT_PHASE = 'http_request_dynamic_redirect';

export const CLOUD_FLARE_TEXT = {
  noUsableProxy:
    "The cloud's proxy region has no usable proxy, so Cloudflare cannot be reached through it; add a proxy to that region or check its proxies",
  zoneAlreadySet: (zoneId: string) =>
    `This domain already has a Cloudflare zone (${zoneId}); unlink or delete it before creating another`,
  zoneExists: (name: string, zoneId: string) =>
    `A zone for ${name} already exists in this Cloudflare account (zone id ${zoneId}). Link it instead: Link Zone with that zone id.`,
  zoneNotInAccount: (zoneId: string, email: string) =>
    `Zone ${zoneId} was not found in the Cloudflare account of cloud ${email}`,
  zoneNotInAccountHint: (zoneId: string, email: string, name: string, otherId: string) =>
    `Zone ${zoneId} was not found in the Cloudflare account of cloud ${email}; that account's zone for ${name} is ${otherId}`,
  zoneOtherAccount: (zoneId: string, email: string) =>
    `Zone ${zoneId} belongs to another Cloudflare account than the one of cloud ${email}`,
  zoneNameMismatch: (zoneId: string, zoneName: string, domainName: string) =>
    `Zone ${zoneId} is ${zoneName}, which does not match the domain ${domainName}`,
  emptyExpression: (names: string[]) =>
    `These firewall rules have no expression and cannot be pushed: ${names.join(', ')}`,
  rulesKeptChanging:
    "The zone's rules kept changing at Cloudflare while they were being pushed; nothing was written — try again",
  dnsNothingToChange: 'DNS records saved: nothing to change',
  dnsUndone: (parts: string, records: number) =>
    `Nothing was changed: ${parts} (${records} record${records === 1 ? '' : 's'}) had been applied and were undone`,
  dnsUndoFailed: (parts: string, records: number, error: string) =>
    `${parts} (${records} record${records === 1 ? '' : 's'}) had been applied and undoing them failed (${error}); the audit entry lists each record — check the zone`,
} as const;

/** Records per DNS batch on every plan (the Free plan's limit; paid plans take more, cloudflare.md §11). */
const MIN_DNS_BATCH_LIMIT = 200;

/** How many times a rules push re-reads when the entry point changed under it before giving up. */
const RULES_PUSH_TRIES = 3;

/** The fields a batch can write back; the rest of a record (id, proxiable, meta, dates) is Cloudflare's. */
const RESTORABLE_RECORD_FIELDS = [
  'type',
  'name',
  'content',
  'ttl',
  'proxied',
  'priority',
  'comment',
  'tags',
  'settings',
  'data',
];
const restorable = (r: CfDnsRecord): Record<string, unknown> => {
  const src = r as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of RESTORABLE_RECORD_FIELDS) if (src[k] !== undefined && src[k] !== null) out[k] = src[k];
  return out;
};

/** Two reads of an entry point are the same when neither exists or both have the same version. */
const sameVersion = (a: CfRuleset | null, b: CfRuleset | null) => (a?.version ?? null) === (b?.version ?? null);

type DnsReportLine = {
  action: 'add' | 'change' | 'delete';
  id?: string;
  type?: string;
  name?: string;
  outcome: 'applied, then undone' | 'applied, undo failed' | 'not applied (its batch failed)' | 'not sent';
};

/** Audit details stay readable: long lists are cut, with their length kept. */
const AUDIT_LIST_MAX = 200;
const capList = (list: unknown[]) =>
  list.length <= AUDIT_LIST_MAX ? list : { count: list.length, first: list.slice(0, AUDIT_LIST_MAX) };

const isOwnRule = (r: Pick<CfRule, 'ref' | 'description'>) =>
  (r.ref ?? '').startsWith(FLEETDESK_RULE_REF_PREFIX) ||
  (r.description ?? '').startsWith(FLEETDESK_RULE_DESCRIPTION_PREFIX);

const toDnsRecord = (r: CfDnsRecord): DnsRecord => {
  const out: DnsRecord = {
    id: r.id,
    type: r.type,
    name: r.name,
    content: r.content,
    proxied: r.proxied,
    ttl: r.ttl,
    proxiable: r.proxiable,
  };
  if (typeof r.priority === 'number') out.priority = r.priority;
  return out;
};

const settingOf = (s: CfSetting): ZoneSetting => ({
  result: { id: s.id, value: String(s.value), editable: s.editable, modified_on: s.modified_on ?? null },
});

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

type RedirectOut = RedirectRulesResult['rules'][number];

/** A Cloudflare redirect rule as the editor's row; null when it is not a single redirect the editor can show. */
function redirectOf(rule: CfRule): RedirectOut | null {
  if (rule.action !== 'redirect') return null;
  const from = (rule.action_parameters as { from_value?: Record<string, unknown> } | undefined)?.from_value;
  const target = from?.target_url as { value?: unknown; expression?: unknown } | undefined;
  if (!from || !target) return null;
  const out: RedirectOut = {
    id: rule.id,
    description: rule.description ?? '',
    enabled: rule.enabled,
    ruleExpression: rule.expression,
    statusCode: typeof from.status_code === 'number' ? from.status_code : DEFAULT_REDIRECT_STATUS_CODE,
    preserveQueryString: from.preserve_query_string === true,
  };
  if (typeof target.value === 'string') out.targetUrlValue = target.value;
  else if (typeof target.expression === 'string') out.targetUrlExpression = target.expression;
  else return null;
  return out;
}

export function createCloudFlareService(deps: {
  cloudflare: CloudflareClient;
  routing: CloudflareRouting;
  domains: Pick<DomainsService, 'get' | 'getFirewallRules' | 'setCloudZone' | 'byZoneIds'>;
  clouds: Pick<CloudsService, 'credentials' | 'rememberAccountId'>;
  proxies: Pick<ProxiesService, 'endpointsInRegion' | 'markWorked'>;
  audit: AuditService;
  /** Connect (and proxy handshake) timeout through a proxy; keep it below the call timeout so failover has time. */
  proxyTimeoutMs?: number;
  /** Serialises rules pushes per zone (across API processes on PostgreSQL); in-process only by default. */
  zoneLocks?: ZoneLocks;
}) {
  const { cloudflare: cf, routing, domains, clouds, proxies, audit } = deps;
  const proxyTimeoutMs = deps.proxyTimeoutMs ?? 10_000;
  const zoneLocks = deps.zoneLocks ?? createZoneLocks(null);

  type Ctx = {
    domain: Domain;
    cloudId: string;
    cloudEmail: string;
    creds: CloudflareCredentials;
    proxyRegionId: string | null;
    /** Whom the calls are made for: their budget owner (decision 015). */
    actor?: Actor;
  };

  /** The domain, its cloud's credentials, and the refusals every call shares. */
  const contextOf = async (domainId: string, needZone: boolean, actor?: Actor): Promise<Ctx & { zoneId: string }> => {
    const domain = await domains.get(domainId);
    if (!domain.cloudId) throw new ValidationError(CLOUD_FLARE_MESSAGES.noCloud, undefined, 'no_cloud');
    if (needZone && !domain.cloudZoneId) {
      throw new ValidationError(CLOUD_FLARE_MESSAGES.noZone, undefined, 'no_cloud_zone');
    }
    const c = await clouds.credentials(domain.cloudId);
    return {
      domain,
      cloudId: c.cloudId,
      cloudEmail: c.email,
      creds: { email: c.email, token: c.token, globalAPIKey: c.globalAPIKey, accountId: c.accountId },
      proxyRegionId: c.proxyRegionId,
      zoneId: domain.cloudZoneId ?? '',
      actor,
    };
  };

  /**
   * Runs Cloudflare calls for the cloud: through the proxies of its proxy region (healthy first, the next one
   * on a connection failure), or direct when it has none. A region without a usable proxy is refused rather
   * than silently going direct, which would show Cloudflare the console's own address.
   */
  const forCloud = async <T>(ctx: Pick<Ctx, 'actor' | 'proxyRegionId'>, fn: () => Promise<T>): Promise<T> => {
    // Operators' calls are interactive; each operator may spend only a share of the cloud's budget (decision 015).
    // A fleet job's calls are background ones (decision 034).
    const budget = routing.budgetFor(ctx.actor?.userId ?? ctx.actor?.username ?? null);
    if (!ctx.proxyRegionId) return routing.run(() => undefined, fn, budget);
    const endpoints = await proxies.endpointsInRegion(ctx.proxyRegionId);
    if (!endpoints.length) throw new ValidationError(CLOUD_FLARE_TEXT.noUsableProxy, undefined, 'no_usable_proxy');
    const made: Dispatcher[] = [];
    let last: (typeof endpoints)[number] | undefined;
    const routes: RouteFor = (attempt) => {
      const endpoint = endpoints[attempt];
      last = endpoint;
      if (!endpoint) return undefined;
      made[attempt] ??= createProxyDispatcher(endpoint, { connectTimeoutMs: proxyTimeoutMs });
      return made[attempt];
    };
    try {
      const result = await routing.run(routes, fn, budget);
      // The last call went through this proxy and worked: a failed mark on it is cleared at once (issue 26).
      if (last?.failed) await proxies.markWorked(last.proxyId).catch(() => undefined);
      return result;
    } finally {
      for (const d of made) void d?.destroy().catch(() => undefined);
    }
  };

  /** The account id, looked up once per cloud and remembered on it. */
  const accountIdOf = async (ctx: Pick<Ctx, 'creds' | 'cloudId'>): Promise<string> => {
    const accountId = await cf.getAccountId(ctx.creds);
    if (accountId !== ctx.creds.accountId) {
      await clouds.rememberAccountId(ctx.cloudId, accountId);
      ctx.creds = { ...ctx.creds, accountId };
    }
    return accountId;
  };

  /**
   * Every action leaves an audit entry on the domain: what was sent and Cloudflare's answer, or the error.
   * Credentials never get here (and the audit redacts secret-named keys anyway).
   */
  const audited = async <T>(
    actor: Actor,
    ctx: Ctx,
    action: string,
    sent: Record<string, unknown>,
    run: () => Promise<{ value: T; answer: unknown }>,
  ): Promise<T> => {
    const base = { action: `cloudflare_${action}`, entity: 'domains', entityId: ctx.domain._id };
    const where = { domainName: ctx.domain.domainName, cloud: ctx.cloudEmail };
    try {
      const { value, answer } = await run();
      await audit.record(actor, { ...base, details: { ...where, outcome: 'ok', sent, answer } });
      return value;
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      // An error may carry what the operator needs to see in the record (e.g. a DNS change undone record by record).
      const extra = (err as { auditDetails?: Record<string, unknown> }).auditDetails ?? {};
      await audit
        .record(actor, { ...base, details: { ...where, outcome: 'failed', sent, error, ...extra } })
        .catch(() => undefined);
      throw err;
    }
  };

  /**
   * Read, change and write a phase's entry point with nothing in between: pushes to one zone are serialised
   * (across API processes on PostgreSQL), and the entry point is read again just before writing; when it changed
   * meanwhile (a rule added at the dashboard), the change is built again from the newer rules (decision 015).
   */
  const pushRules = (
    ctx: Ctx & { zoneId: string },
    phase: CfRulesetPhase,
    build: (existing: CfRule[]) => CfRuleInput[],
  ): Promise<CfRuleset> =>
    zoneLocks.run(`cloudflare-rules:${ctx.zoneId}:${phase}`, async () => {
      let current = await cf.getEntrypointRuleset(ctx.creds, ctx.zoneId, phase);
      for (let i = 1; ; i++) {
        const rules = build(current?.rules ?? []);
        const latest = await cf.getEntrypointRuleset(ctx.creds, ctx.zoneId, phase);
        if (sameVersion(current, latest)) return cf.putEntrypointRuleset(ctx.creds, ctx.zoneId, phase, rules);
        if (i >= RULES_PUSH_TRIES)
          throw new ConflictError(CLOUD_FLARE_TEXT.rulesKeptChanging, undefined, 'zone_rules_changed');
        current = latest;
      }
    });

  /**
   * A later part of a split DNS change failed: applies the inverse of the parts that went through (new records
   * deleted, changed records put back as they were, deleted records created again) and returns the error to
   * raise, which says what happened and carries the record-by-record report for the audit entry.
   */
  const undoParts = async (
    ctx: Ctx & { zoneId: string },
    batch: { deletes: { id: string }[]; patches: { id: string }[]; posts: { type: string; name: string }[] },
    before: CfDnsRecord[],
    err: DnsBatchPartError,
    limit: number,
  ): Promise<UpstreamError> => {
    const was = new Map(before.map((r) => [r.id, r]));
    const applied = err.appliedInput;
    const missing: string[] = [];
    const undo: CfDnsBatch = { deletes: [], puts: [], posts: [] };
    for (const created of err.applied.posts) undo.deletes!.push({ id: created.id });
    for (const p of applied.patches ?? []) {
      const old = was.get(p.id);
      if (old) undo.puts!.push({ id: p.id, ...(restorable(old) as { type: string; name: string; content: string }) });
      else missing.push(p.id);
    }
    for (const d of applied.deletes ?? []) {
      const old = was.get(d.id);
      if (old) undo.posts!.push(restorable(old) as { type: string; name: string; content: string });
      else missing.push(d.id);
    }
    let undoError = missing.length ? `the earlier state of ${missing.join(', ')} was not known` : '';
    if (!undoError) {
      try {
        await cf.batchDns(ctx.creds, ctx.zoneId, undo, { limit });
      } catch (e) {
        undoError = e instanceof Error ? e.message : String(e);
      }
    }
    const appliedCount = err.part - 1;
    const appliedRecords =
      (applied.deletes?.length ?? 0) + (applied.patches?.length ?? 0) + (applied.posts?.length ?? 0);
    // Ops are sent in the order deletes, patches, posts; the first appliedRecords of them went through,
    // the next `limit` were in the part that failed, the rest were never sent.
    const ops: Omit<DnsReportLine, 'outcome'>[] = [
      ...batch.deletes.map((d) => ({
        action: 'delete' as const,
        id: d.id,
        type: was.get(d.id)?.type,
        name: was.get(d.id)?.name,
      })),
      ...batch.patches.map((p) => ({
        action: 'change' as const,
        id: p.id,
        type: was.get(p.id)?.type,
        name: was.get(p.id)?.name,
      })),
      ...batch.posts.map((p) => ({ action: 'add' as const, type: p.type, name: p.name })),
    ];
    const report: DnsReportLine[] = ops.map((op, i) => ({
      ...op,
      outcome:
        i < appliedRecords
          ? undoError
            ? 'applied, undo failed'
            : 'applied, then undone'
          : i < appliedRecords + limit
            ? 'not applied (its batch failed)'
            : 'not sent',
    }));
    const partsText = appliedCount === 1 ? 'part 1' : `parts 1-${appliedCount}`;
    const summary = undoError
      ? CLOUD_FLARE_TEXT.dnsUndoFailed(partsText, appliedRecords, undoError)
      : CLOUD_FLARE_TEXT.dnsUndone(partsText, appliedRecords);
    const out = new UpstreamError('Cloudflare', `${err.message}. ${summary}`, {
      code: undoError ? 'dns_change_partly_applied' : err.code,
      upstreamStatus: err.upstreamStatus,
      upstreamCode: err.upstreamCode,
    });
    return Object.assign(out, {
      auditDetails: {
        split: { part: err.part, parts: err.parts, limit },
        undone: !undoError,
        ...(undoError ? { undoError } : {}),
        records: capList(report),
      },
    });
  };

  const zoneResult = (z: { id: string; name: string; name_servers: string[]; status: string }) => ({
    id: z.id,
    name: z.name,
    name_servers: z.name_servers,
    status: z.status,
  });

  return {
    /** Every zone of the cloud's account, page after page to the end (the imports, decision 043). */
    async listCloudZones(cloudId: string, actor?: Actor) {
      const c = await clouds.credentials(cloudId);
      const ctx = {
        cloudId: c.cloudId,
        creds: { email: c.email, token: c.token, globalAPIKey: c.globalAPIKey, accountId: c.accountId },
        proxyRegionId: c.proxyRegionId,
        actor,
      };
      const zones = await forCloud(ctx, async () => {
        const accountId = await accountIdOf(ctx);
        return cf.listZones({ ...ctx.creds, accountId }, { accountId });
      });
      return { email: c.email, zones: zones.map(zoneResult) };
    },

    async zoneInfo(domainId: string, actor?: Actor): Promise<CloudZoneInfo> {
      const ctx = await contextOf(domainId, true, actor);
      try {
        const zone = await forCloud(ctx, () => cf.getZone(ctx.creds, ctx.zoneId));
        return { data: { result: zoneResult(zone) } };
      } catch (err) {
        if (err instanceof AppError) return { errorMessage: err.message, data: { result: null } };
        throw err;
      }
    },

    /** A page of the zones of the domain's cloud account, each marked with the other domain linked to it. */
    async listZones(domainId: string, q: CloudZonesQuery, actor: Actor): Promise<CloudZoneList> {
      const ctx = await contextOf(domainId, false, actor);
      const { zones, totalCount } = await forCloud(ctx, async () => {
        const accountId = await accountIdOf(ctx);
        return cf.listZonesPage(ctx.creds, {
          search: q.search,
          page: q.page,
          perPage: CLOUD_ZONES_PAGE_SIZE,
          accountId,
        });
      });
      const linked = await domains.byZoneIds(zones.map((z) => z.id));
      const byZone = new Map(linked.filter((d) => d._id !== domainId).map((d) => [d.cloudZoneId, d]));
      return {
        items: zones.map((z) => {
          const other = byZone.get(z.id);
          return {
            id: z.id,
            name: z.name,
            status: z.status,
            plan: z.plan?.name ?? null,
            linkedDomain: other ? { _id: other._id, domainName: other.domainName } : null,
          };
        }),
        totalCount,
        page: q.page,
        pageSize: CLOUD_ZONES_PAGE_SIZE,
      };
    },

    async createZone(domainId: string, actor: Actor): Promise<CreateZoneResult> {
      const ctx = await contextOf(domainId, false, actor);
      if (ctx.zoneId)
        throw new ConflictError(CLOUD_FLARE_TEXT.zoneAlreadySet(ctx.zoneId), undefined, 'zone_already_set');
      const name = ctx.domain.domainName;
      const zone = await audited(actor, ctx, 'create_zone', { name, type: 'full' }, () =>
        forCloud(ctx, async () => {
          const accountId = await accountIdOf(ctx);
          try {
            const z = await cf.createZone(ctx.creds, name);
            return { value: z, answer: zoneResult(z) };
          } catch (err) {
            if (!(err instanceof UpstreamError) || err.upstreamCode !== 1061) throw err;
            // 1061: the name is taken. In this account, the operator can link the zone instead.
            const existing = await cf.findZoneByName({ ...ctx.creds, accountId }, name);
            if (!existing) throw err;
            throw new ConflictError(
              CLOUD_FLARE_TEXT.zoneExists(name, existing.id),
              { cloudZoneId: existing.id },
              CLOUD_ZONE_EXISTS_CODE,
            );
          }
        }),
      );
      await domains.setCloudZone(domainId, { cloudZoneId: zone.id, cloudRulesetId: null }, actor);
      return { cloudZoneId: zone.id, name: zone.name, status: zone.status, nameServers: zone.name_servers };
    },

    async deleteZone(domainId: string, actor: Actor) {
      const ctx = await contextOf(domainId, true, actor);
      await audited(actor, ctx, 'delete_zone', { zoneId: ctx.zoneId }, () =>
        forCloud(ctx, async () => {
          const answer = await cf.deleteZone(ctx.creds, ctx.zoneId);
          return { value: answer, answer };
        }),
      );
      const d = await domains.setCloudZone(domainId, { cloudZoneId: null, cloudRulesetId: null }, actor);
      return { cloudZoneId: d.cloudZoneId, cloudRulesetId: d.cloudRulesetId };
    },

    /** Checks that the zone is in the cloud's account and is the domain's, then stores it; 400 says which check failed. */
    async linkZone(domainId: string, cloudZoneId: string, actor: Actor) {
      const ctx = await contextOf(domainId, false, actor);
      const name = ctx.domain.domainName;
      const refuse = (message: string) => new ValidationError(message, { cloudZoneId: message }, 'zone_link_refused');
      await audited(actor, ctx, 'link_zone', { zoneId: cloudZoneId }, () =>
        forCloud(ctx, async () => {
          // Proves the credentials first, so a refusal below is about the zone, not about a bad key.
          const accountId = await accountIdOf(ctx);
          let zone;
          try {
            zone = await cf.getZone(ctx.creds, cloudZoneId);
          } catch (err) {
            const missing =
              err instanceof UpstreamError &&
              (err.upstreamStatus === 404 || err.upstreamStatus === 403 || err.code === 'upstream_auth_failed');
            if (!missing) throw err;
            const own = await cf.findZoneByName({ ...ctx.creds, accountId }, name);
            throw refuse(
              own
                ? CLOUD_FLARE_TEXT.zoneNotInAccountHint(cloudZoneId, ctx.cloudEmail, name, own.id)
                : CLOUD_FLARE_TEXT.zoneNotInAccount(cloudZoneId, ctx.cloudEmail),
            );
          }
          if (zone.account?.id && zone.account.id !== accountId) {
            throw refuse(CLOUD_FLARE_TEXT.zoneOtherAccount(cloudZoneId, ctx.cloudEmail));
          }
          if (zone.name.toLowerCase() !== name.toLowerCase()) {
            throw refuse(CLOUD_FLARE_TEXT.zoneNameMismatch(cloudZoneId, zone.name, name));
          }
          return { value: zone, answer: zoneResult(zone) };
        }),
      );
      const sameZone = ctx.domain.cloudZoneId === cloudZoneId;
      const d = await domains.setCloudZone(
        domainId,
        { cloudZoneId, cloudRulesetId: sameZone ? ctx.domain.cloudRulesetId : null },
        actor,
      );
      return { cloudZoneId: d.cloudZoneId, cloudRulesetId: d.cloudRulesetId };
    },

    /** Forgets the zone; it stays at Cloudflare. */
    async unlinkZone(domainId: string, actor: Actor) {
      const ctx = await contextOf(domainId, true, actor);
      const d = await audited(
        actor,
        ctx,
        'unlink_zone',
        { zoneId: ctx.zoneId, cloudRulesetId: ctx.domain.cloudRulesetId },
        async () => {
          const value = await domains.setCloudZone(domainId, { cloudZoneId: null, cloudRulesetId: null }, actor);
          return { value, answer: null };
        },
      );
      return { cloudZoneId: d.cloudZoneId, cloudRulesetId: d.cloudRulesetId };
    },

    /**
     * Writes the domain's WAF rules, ordered by priority, into the custom-rules entry point. The console marks
     * its rules (ref "fleetdesk:<ruleId>", description "[fleetdesk] <name>") and replaces only those: everyone
     * else's rules keep their place, and the console's block takes the place of its previous block (or goes last).
     */
    async updateFirewallRules(domainId: string, actor: Actor): Promise<UpdateFirewallRulesResult> {
      const ctx = await contextOf(domainId, true, actor);
      const saved = await domains.getFirewallRules(domainId);
      // Lower priority first; equal priorities keep the saved order (the sort is stable).
      const ordered = [...saved].sort((a, b) => a.priority - b.priority);
      const empty = ordered.filter((r) => !r.expression.trim());
      if (empty.length) {
        throw new ValidationError(
          CLOUD_FLARE_TEXT.emptyExpression(empty.map((r) => r.ruleName)),
          undefined,
          'rule_expression_missing',
        );
      }
      const rules = ordered.map((r) => ({
        ruleId: r.ruleId,
        ruleName: r.ruleName,
        action: r.action,
        expression: r.expression,
        priority: r.priority,
      }));
      const sent = { zoneId: ctx.zoneId, phase: WAF_PHASE, rules };
      const out = await audited(actor, ctx, 'update_firewall_rules', sent, () =>
        forCloud(ctx, async () => {
          let foreign: CfRule[] = [];
          const ruleset = await pushRules(ctx, WAF_PHASE, (existing) => {
            const byRef = new Map(existing.filter(isOwnRule).map((r) => [r.ref, r]));
            const own: CfRuleInput[] = rules.map((r) => {
              const ref = `${FLEETDESK_RULE_REF_PREFIX}${r.ruleId}`;
              const rule: CfRuleInput = {
                ref,
                action: r.action,
                expression: r.expression,
                description: `${FLEETDESK_RULE_DESCRIPTION_PREFIX}${r.ruleName}`,
                enabled: true,
              };
              // skip needs to say what it skips: the rest of this ruleset, as the old firewall rules did.
              if (r.action === 'skip') rule.action_parameters = { ruleset: 'current' };
              const previous = byRef.get(ref);
              if (previous) rule.id = previous.id;
              return rule;
            });
            const firstOwn = existing.findIndex(isOwnRule);
            foreign = existing.filter((r) => !isOwnRule(r));
            const before = firstOwn < 0 ? foreign : existing.slice(0, firstOwn).filter((r) => !isOwnRule(r));
            const after = firstOwn < 0 ? [] : existing.slice(firstOwn).filter((r) => !isOwnRule(r));
            return [...before, ...own, ...after];
          });
          const value = { cloudRulesetId: ruleset.id, preservedRules: foreign.length };
          return {
            value,
            answer: {
              rulesetId: ruleset.id,
              version: ruleset.version,
              rules: capList(ruleset.rules.map((r) => ({ id: r.id, ref: r.ref, action: r.action }))),
            },
          };
        }),
      );
      await domains.setCloudZone(domainId, { cloudRulesetId: out.cloudRulesetId }, actor);
      const kept = out.preservedRules ? `; kept ${plural(out.preservedRules, 'rule')} not made by the console` : '';
      return {
        cloudRulesetId: out.cloudRulesetId,
        rules,
        preservedRules: out.preservedRules,
        message: `Pushed ${plural(rules.length, 'firewall rule')} to Cloudflare${kept}`,
      };
    },

    /**
     * What a push would change (fleet plans): the console's rules now in the zone against the domain's saved
     * rules, compared by ref, action and expression in order.
     */
    async firewallRulesState(domainId: string, actor?: Actor) {
      const ctx = await contextOf(domainId, true, actor);
      const saved = [...(await domains.getFirewallRules(domainId))].sort((a, b) => a.priority - b.priority);
      const rs = await forCloud(ctx, () => cf.getEntrypointRuleset(ctx.creds, ctx.zoneId, WAF_PHASE));
      const inZone = (rs?.rules ?? []).filter(isOwnRule).map((r) => `${r.ref}|${r.action}|${r.expression}`);
      const wanted = saved.map((r) => `${FLEETDESK_RULE_REF_PREFIX}${r.ruleId}|${r.action}|${r.expression}`);
      const show = (r: { action: string; expression: string }) => `${r.action}: ${r.expression}`;
      return {
        saved: saved.length,
        inZone: inZone.length,
        matches: inZone.length === wanted.length && inZone.every((x, i) => x === wanted[i]),
        version: rs?.version ?? null,
        // For the health check: what the console's rules are in the zone and should be, and the others' count.
        ownRules: (rs?.rules ?? []).filter(isOwnRule).map(show),
        savedRules: saved.map(show),
        foreign: (rs?.rules ?? []).filter((r) => !isOwnRule(r)).length,
      };
    },

    /** The zone's status and dates (the health check: pending for more than a day is failing). */
    async zoneStatus(domainId: string, actor?: Actor) {
      const ctx = await contextOf(domainId, true, actor);
      const z = await forCloud(ctx, () => cf.getZone(ctx.creds, ctx.zoneId));
      return { status: z.status, nameServers: z.name_servers, createdOn: z.created_on, activatedOn: z.activated_on };
    },

    async getSetting(domainId: string, setting: 'ssl' | 'tls_1_3', actor?: Actor): Promise<ZoneSetting> {
      const ctx = await contextOf(domainId, true, actor);
      return settingOf(await forCloud(ctx, () => cf.getSetting(ctx.creds, ctx.zoneId, setting)));
    },

    async setSsl(domainId: string, value: SslMode, actor: Actor): Promise<ZoneSetting> {
      const ctx = await contextOf(domainId, true, actor);
      return audited(actor, ctx, 'set_ssl', { zoneId: ctx.zoneId, setting: 'ssl', value }, () =>
        forCloud(ctx, async () => {
          const s = settingOf(await cf.setSetting(ctx.creds, ctx.zoneId, 'ssl', value));
          return { value: s, answer: s.result };
        }),
      );
    },

    async setTls13(domainId: string, value: Tls13Mode, actor: Actor): Promise<ZoneSetting> {
      const ctx = await contextOf(domainId, true, actor);
      return audited(actor, ctx, 'set_tls_1_3', { zoneId: ctx.zoneId, setting: 'tls_1_3', value }, () =>
        forCloud(ctx, async () => {
          const s = settingOf(await cf.setSetting(ctx.creds, ctx.zoneId, 'tls_1_3', value));
          return { value: s, answer: s.result };
        }),
      );
    },

    async listDnsRecords(domainId: string, actor?: Actor): Promise<{ result: DnsRecord[] }> {
      const ctx = await contextOf(domainId, true, actor);
      const records = await forCloud(ctx, () => cf.listDnsRecords(ctx.creds, ctx.zoneId));
      return { result: records.map(toDnsRecord) };
    },

    /**
     * One change, all or nothing from the operator's view (decision 014). Cloudflare's batch is atomic, but one
     * batch holds at most the zone plan's limit; a larger change is split, and when a later part fails the parts
     * already applied are undone with their inverse (the records as they were are read first), and the outcome of
     * every record goes to the audit entry. An empty change sends nothing.
     */
    async changeDnsRecords(domainId: string, input: DnsChanges, actor: Actor): Promise<DnsChangesResult> {
      const ctx = await contextOf(domainId, true, actor);
      const batch = { deletes: input.deletes, patches: input.patches, posts: input.posts };
      // Cloudflare's own rules (the editor and fleet plans check the same ones), before anything is sent.
      const fields: Record<string, string> = {};
      for (const [list, rows] of [
        ['posts', batch.posts],
        ['patches', batch.patches],
      ] as const)
        rows.forEach((r, i) => {
          for (const p of dnsRecordProblems(r, ctx.domain.domainName)) fields[`${list}.${i}.${p.field}`] ??= p.message;
        });
      const firstProblem = Object.values(fields)[0];
      if (firstProblem) throw new ValidationError(firstProblem, fields, 'dns_record_invalid');
      const total = batch.deletes.length + batch.patches.length + batch.posts.length;
      if (total === 0) {
        return {
          result: { deletes: [], patches: [], posts: [] },
          batches: 0,
          message: CLOUD_FLARE_TEXT.dnsNothingToChange,
        };
      }
      const sent = {
        zoneId: ctx.zoneId,
        deletes: capList(batch.deletes),
        patches: capList(batch.patches),
        posts: capList(batch.posts),
      };
      let limit = MIN_DNS_BATCH_LIMIT;
      const r = await audited(actor, ctx, 'change_dns_records', sent, () =>
        forCloud(ctx, async () => {
          // Every plan takes the Free plan's 200; only a larger change needs to know the zone's own limit.
          if (total > MIN_DNS_BATCH_LIMIT) limit = cf.batchLimitFor(await cf.getZone(ctx.creds, ctx.zoneId));
          const before = total > limit ? await cf.listDnsRecords(ctx.creds, ctx.zoneId) : [];
          let res;
          try {
            res = await cf.batchDns(ctx.creds, ctx.zoneId, batch, { limit });
          } catch (err) {
            if (err instanceof DnsBatchPartError) throw await undoParts(ctx, batch, before, err, limit);
            throw err;
          }
          const answer = {
            batches: res.batches,
            limit,
            deletes: capList(res.deletes.map((x) => x.id)),
            patches: capList(res.patches.map(toDnsRecord)),
            posts: capList(res.posts.map(toDnsRecord)),
          };
          return { value: res, answer };
        }),
      );
      const parts = [
        `${batch.posts.length} added`,
        `${batch.patches.length} changed`,
        `${batch.deletes.length} deleted`,
      ].join(', ');
      const split =
        r.batches > 1
          ? ` in ${r.batches} batches (this zone's plan takes at most ${limit} records per batch; had one failed, the others would have been undone)`
          : '';
      return {
        result: {
          deletes: r.deletes.map(toDnsRecord),
          patches: r.patches.map(toDnsRecord),
          posts: r.posts.map(toDnsRecord),
        },
        batches: r.batches,
        message: `DNS records saved: ${parts}${split}`,
      };
    },

    async getRedirectRules(domainId: string, actor?: Actor): Promise<RedirectRulesResult> {
      const ctx = await contextOf(domainId, true, actor);
      const rs = await forCloud(ctx, () => cf.getEntrypointRuleset(ctx.creds, ctx.zoneId, REDIRECT_PHASE));
      return { rules: (rs?.rules ?? []).map(redirectOf).filter((r): r is RedirectOut => r !== null) };
    },

    /** Replaces the single redirects of the zone with the editor's rows; rules the editor cannot show are kept. */
    async setRedirectRules(domainId: string, input: RedirectRules, actor: Actor): Promise<RedirectRulesResult> {
      const ctx = await contextOf(domainId, true, actor);
      const sent = { zoneId: ctx.zoneId, phase: REDIRECT_PHASE, rules: input.rules };
      return audited(actor, ctx, 'set_redirect_rules', sent, () =>
        forCloud(ctx, async () => {
          const ruleset = await pushRules(ctx, REDIRECT_PHASE, (existing) => {
            const known = new Set(existing.map((r) => r.id));
            const rows: CfRuleInput[] = input.rules.map((r) => {
              const target =
                r.targetUrlValue !== undefined ? { value: r.targetUrlValue } : { expression: r.targetUrlExpression };
              const rule: CfRuleInput = {
                action: 'redirect',
                expression: r.ruleExpression,
                description: r.description ?? '',
                enabled: r.enabled ?? true,
                action_parameters: {
                  from_value: {
                    target_url: target,
                    status_code: r.statusCode,
                    preserve_query_string: r.preserveQueryString,
                  },
                },
              };
              // An id Cloudflare no longer has would fail the whole write: such a row becomes a new rule.
              if (r.id && known.has(r.id)) rule.id = r.id;
              return rule;
            });
            // Rules the editor cannot show keep their place: each shown rule's slot takes the editor's next row,
            // and rows beyond the old count go after the last shown rule (or last, when there was none).
            const out: CfRuleInput[] = [];
            let next = 0;
            let lastShown = -1;
            for (const r of existing) {
              if (redirectOf(r) === null) out.push(r);
              else {
                const row = rows[next++];
                if (row) out.push(row);
                lastShown = out.length - 1;
              }
            }
            const rest = rows.slice(next);
            if (lastShown < 0) out.push(...rest);
            else out.splice(lastShown + 1, 0, ...rest);
            return out;
          });
          const value = {
            rules: ruleset.rules.map(redirectOf).filter((r): r is RedirectOut => r !== null),
          };
          return { value, answer: { rulesetId: ruleset.id, version: ruleset.version, rules: capList(value.rules) } };
        }),
      );
    },

    async purgeCache(domainId: string, actor: Actor): Promise<PurgeCacheResult> {
      const ctx = await contextOf(domainId, true, actor);
      return audited(actor, ctx, 'purge_cache', { zoneId: ctx.zoneId, purge_everything: true }, () =>
        forCloud(ctx, async () => {
          const answer = await cf.purgeEverything(ctx.creds, ctx.zoneId);
          return {
            value: { id: answer.id, message: 'Cache purged: Cloudflare is dropping every cached file of the zone' },
            answer,
          };
        }),
      );
    },
  };
}
export type CloudFlareService = ReturnType<typeof createCloudFlareService>;
