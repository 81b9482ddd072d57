import type { Dispatcher } from 'undici';
import {
  CLOUD_FLARE_MESSAGES,
  CLOUD_ZONE_EXISTS_CODE,
  DEFAULT_REDIRECT_STATUS_CODE,
  FLEETDESK_RULE_DESCRIPTION_PREFIX,
  FLEETDESK_RULE_REF_PREFIX,
  type CloudZoneInfo,
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
import type {
  CfDnsRecord,
  CfRule,
  CfRuleInput,
  CfSetting,
  CloudflareClient,
  CloudflareCredentials,
} from '../../integrations/cloudflare/index.ts';
import { createProxyDispatcher } from '../../integrations/proxy/index.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { CloudsService } from '../clouds/clouds.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { ProxiesService } from '../proxies/proxies.service.ts';
import type { CloudflareRouting, RouteFor } from './cloudflare-routing.ts';

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
} as const;

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
  domains: Pick<DomainsService, 'get' | 'getFirewallRules' | 'setCloudZone'>;
  clouds: Pick<CloudsService, 'credentials' | 'rememberAccountId'>;
  proxies: Pick<ProxiesService, 'endpointsInRegion'>;
  audit: AuditService;
  /** Connect timeout through a proxy. */
  proxyTimeoutMs?: number;
}) {
  const { cloudflare: cf, routing, domains, clouds, proxies, audit } = deps;
  const proxyTimeoutMs = deps.proxyTimeoutMs ?? 10_000;

  type Ctx = {
    domain: Domain;
    cloudId: string;
    cloudEmail: string;
    creds: CloudflareCredentials;
    proxyRegionId: string | null;
  };

  /** The domain, its cloud's credentials, and the refusals every call shares. */
  const contextOf = async (domainId: string, needZone: boolean): Promise<Ctx & { zoneId: string }> => {
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
    };
  };

  /**
   * Runs Cloudflare calls for the cloud: through the proxies of its proxy region (healthy first, the next one
   * on a connection failure), or direct when it has none. A region without a usable proxy is refused rather
   * than silently going direct, which would show Cloudflare the console's own address.
   */
  const forCloud = async <T>(ctx: Ctx, fn: () => Promise<T>): Promise<T> => {
    if (!ctx.proxyRegionId) return routing.run(() => undefined, fn);
    const endpoints = await proxies.endpointsInRegion(ctx.proxyRegionId);
    if (!endpoints.length) throw new ValidationError(CLOUD_FLARE_TEXT.noUsableProxy, undefined, 'no_usable_proxy');
    const made: Dispatcher[] = [];
    const routes: RouteFor = (attempt) => {
      const endpoint = endpoints[attempt];
      if (!endpoint) return undefined;
      made[attempt] ??= createProxyDispatcher(endpoint, { connectTimeoutMs: proxyTimeoutMs });
      return made[attempt];
    };
    try {
      return await routing.run(routes, fn);
    } finally {
      for (const d of made) void d?.destroy().catch(() => undefined);
    }
  };

  /** The account id, looked up once per cloud and remembered on it. */
  const accountIdOf = async (ctx: Ctx): Promise<string> => {
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
      await audit
        .record(actor, { ...base, details: { ...where, outcome: 'failed', sent, error } })
        .catch(() => undefined);
      throw err;
    }
  };

  const zoneResult = (z: { id: string; name: string; name_servers: string[]; status: string }) => ({
    id: z.id,
    name: z.name,
    name_servers: z.name_servers,
    status: z.status,
  });

  return {
    async zoneInfo(domainId: string): Promise<CloudZoneInfo> {
      const ctx = await contextOf(domainId, true);
      try {
        const zone = await forCloud(ctx, () => cf.getZone(ctx.creds, ctx.zoneId));
        return { data: { result: zoneResult(zone) } };
      } catch (err) {
        if (err instanceof AppError) return { errorMessage: err.message, data: { result: null } };
        throw err;
      }
    },

    async createZone(domainId: string, actor: Actor): Promise<CreateZoneResult> {
      const ctx = await contextOf(domainId, false);
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
      const ctx = await contextOf(domainId, true);
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
      const ctx = await contextOf(domainId, false);
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
      const ctx = await contextOf(domainId, true);
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
      const ctx = await contextOf(domainId, true);
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
          const current = await cf.getEntrypointRuleset(ctx.creds, ctx.zoneId, WAF_PHASE);
          const existing = current?.rules ?? [];
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
          const foreign = existing.filter((r) => !isOwnRule(r));
          const before = firstOwn < 0 ? foreign : existing.slice(0, firstOwn).filter((r) => !isOwnRule(r));
          const after = firstOwn < 0 ? [] : existing.slice(firstOwn).filter((r) => !isOwnRule(r));
          const ruleset = await cf.putEntrypointRuleset(ctx.creds, ctx.zoneId, WAF_PHASE, [
            ...before,
            ...own,
            ...after,
          ]);
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

    async getSetting(domainId: string, setting: 'ssl' | 'tls_1_3'): Promise<ZoneSetting> {
      const ctx = await contextOf(domainId, true);
      return settingOf(await forCloud(ctx, () => cf.getSetting(ctx.creds, ctx.zoneId, setting)));
    },

    async setSsl(domainId: string, value: SslMode, actor: Actor): Promise<ZoneSetting> {
      const ctx = await contextOf(domainId, true);
      return audited(actor, ctx, 'set_ssl', { zoneId: ctx.zoneId, setting: 'ssl', value }, () =>
        forCloud(ctx, async () => {
          const s = settingOf(await cf.setSetting(ctx.creds, ctx.zoneId, 'ssl', value));
          return { value: s, answer: s.result };
        }),
      );
    },

    async setTls13(domainId: string, value: Tls13Mode, actor: Actor): Promise<ZoneSetting> {
      const ctx = await contextOf(domainId, true);
      return audited(actor, ctx, 'set_tls_1_3', { zoneId: ctx.zoneId, setting: 'tls_1_3', value }, () =>
        forCloud(ctx, async () => {
          const s = settingOf(await cf.setSetting(ctx.creds, ctx.zoneId, 'tls_1_3', value));
          return { value: s, answer: s.result };
        }),
      );
    },

    async listDnsRecords(domainId: string): Promise<{ result: DnsRecord[] }> {
      const ctx = await contextOf(domainId, true);
      const records = await forCloud(ctx, () => cf.listDnsRecords(ctx.creds, ctx.zoneId));
      return { result: records.map(toDnsRecord) };
    },

    /** One all-or-nothing batch (split in parts of Cloudflare's limit, and the operator told so). */
    async changeDnsRecords(domainId: string, input: DnsChanges, actor: Actor): Promise<DnsChangesResult> {
      const ctx = await contextOf(domainId, true);
      const batch = { deletes: input.deletes, patches: input.patches, posts: input.posts };
      const sent = {
        zoneId: ctx.zoneId,
        deletes: capList(batch.deletes),
        patches: capList(batch.patches),
        posts: capList(batch.posts),
      };
      const r = await audited(actor, ctx, 'change_dns_records', sent, () =>
        forCloud(ctx, async () => {
          const res = await cf.batchDns(ctx.creds, ctx.zoneId, batch);
          const answer = {
            batches: res.batches,
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
          ? ` in ${r.batches} batches (Cloudflare takes at most 200 records per batch; each is all or nothing)`
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

    async getRedirectRules(domainId: string): Promise<RedirectRulesResult> {
      const ctx = await contextOf(domainId, true);
      const rs = await forCloud(ctx, () => cf.getEntrypointRuleset(ctx.creds, ctx.zoneId, REDIRECT_PHASE));
      return { rules: (rs?.rules ?? []).map(redirectOf).filter((r): r is RedirectOut => r !== null) };
    },

    /** Replaces the single redirects of the zone with the editor's rows; rules the editor cannot show are kept. */
    async setRedirectRules(domainId: string, input: RedirectRules, actor: Actor): Promise<RedirectRulesResult> {
      const ctx = await contextOf(domainId, true);
      const sent = { zoneId: ctx.zoneId, phase: REDIRECT_PHASE, rules: input.rules };
      return audited(actor, ctx, 'set_redirect_rules', sent, () =>
        forCloud(ctx, async () => {
          const current = await cf.getEntrypointRuleset(ctx.creds, ctx.zoneId, REDIRECT_PHASE);
          const existing = current?.rules ?? [];
          const known = new Set(existing.map((r) => r.id));
          const untouched = existing.filter((r) => redirectOf(r) === null);
          const rules: CfRuleInput[] = input.rules.map((r) => {
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
          const ruleset = await cf.putEntrypointRuleset(ctx.creds, ctx.zoneId, REDIRECT_PHASE, [
            ...rules,
            ...untouched,
          ]);
          const value = {
            rules: ruleset.rules.map(redirectOf).filter((r): r is RedirectOut => r !== null),
          };
          return { value, answer: { rulesetId: ruleset.id, version: ruleset.version, rules: capList(value.rules) } };
        }),
      );
    },

    async purgeCache(domainId: string, actor: Actor): Promise<PurgeCacheResult> {
      const ctx = await contextOf(domainId, true);
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
