import type { Dispatcher } from 'undici';
import {
  CLOUD_FLARE_MESSAGES,
  FLEETDESK_RULE_DESCRIPTION_PREFIX,
  FLEETDESK_RULE_REF_PREFIX,
  type Domain,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { ConflictError, ValidationError } from '../../http/errors.ts';
import type {
  CfRule,
  CfRuleInput,
  CfRuleset,
  CfRulesetPhase,
  CloudflareClient,
  CloudflareCredentials,
} from '../../integrations/cloudflare/index.ts';
import { createProxyDispatcher } from '../../integrations/proxy/index.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { CloudsService } from '../clouds/clouds.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { ProxiesService } from '../proxies/proxies.service.ts';
import type { CloudflareRouting, RouteFor } from './cloudflare-routing.ts';
import { createZoneLocks, type ZoneLocks } from './zone-lock.ts';

/**
 * What every concern of the Cloudflare service (zones, DNS, SSL, WAF, redirects, cache) shares: the domain's
 * context and refusals, the calls through the cloud's proxies within its budget, the audit entry, rules pushes.
 */
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

/** How many times a rules push re-reads when the entry point changed under it before giving up. */
const RULES_PUSH_TRIES = 3;

/** Two reads of an entry point are the same when neither exists or both have the same version. */
const sameVersion = (a: CfRuleset | null, b: CfRuleset | null) => (a?.version ?? null) === (b?.version ?? null);

/** Audit details stay readable: long lists are cut, with their length kept. */
const AUDIT_LIST_MAX = 200;
export const capList = (list: unknown[]) =>
  list.length <= AUDIT_LIST_MAX ? list : { count: list.length, first: list.slice(0, AUDIT_LIST_MAX) };

export const isOwnRule = (r: Pick<CfRule, 'ref' | 'description'>) =>
  (r.ref ?? '').startsWith(FLEETDESK_RULE_REF_PREFIX) ||
  (r.description ?? '').startsWith(FLEETDESK_RULE_DESCRIPTION_PREFIX);

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A domain by its id, or as the caller has just read it. */
export type DomainRef = string | Domain;

export type CloudFlareDeps = {
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
};

export type Ctx = {
  domain: Domain;
  cloudId: string;
  cloudEmail: string;
  creds: CloudflareCredentials;
  proxyRegionId: string | null;
  /** Whom the calls are made for: their budget owner (decision 015). */
  actor?: Actor;
};

/** The cloud's calls as the concerns make them. */
export function createCloudFlareCalls(deps: CloudFlareDeps) {
  const { cloudflare: cf, routing, domains, clouds, proxies, audit } = deps;
  const proxyTimeoutMs = deps.proxyTimeoutMs ?? 10_000;
  const zoneLocks = deps.zoneLocks ?? createZoneLocks(null);

  /** A cloud's credentials and route, for calls made for `actor`. */
  const cloudOf = async (cloudId: string, actor?: Actor): Promise<Omit<Ctx, 'domain'>> => {
    const c = await clouds.credentials(cloudId);
    return {
      cloudId: c.cloudId,
      cloudEmail: c.email,
      creds: { email: c.email, token: c.token, globalAPIKey: c.globalAPIKey, accountId: c.accountId },
      proxyRegionId: c.proxyRegionId,
      actor,
    };
  };

  /**
   * The domain, its cloud's credentials, and the refusals every call shares. A caller that has just read the
   * domain (a fleet plan reads a page of them at once) hands it over rather than having it read again.
   */
  const contextOf = async (ref: DomainRef, needZone: boolean, actor?: Actor): Promise<Ctx & { zoneId: string }> => {
    const domain = typeof ref === 'string' ? await domains.get(ref) : ref;
    if (!domain.cloudId) throw new ValidationError(CLOUD_FLARE_MESSAGES.noCloud, undefined, 'no_cloud');
    if (needZone && !domain.cloudZoneId) {
      throw new ValidationError(CLOUD_FLARE_MESSAGES.noZone, undefined, 'no_cloud_zone');
    }
    return { domain, ...(await cloudOf(domain.cloudId, actor)), zoneId: domain.cloudZoneId ?? '' };
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
    /** `extra`: more details for the entry, e.g. `undo`, what the change can be reverted with (fleet.undo.ts). */
    run: () => Promise<{ value: T; answer: unknown; extra?: Record<string, unknown> }>,
  ): Promise<T> => {
    const base = { action: `cloudflare_${action}`, entity: 'domains', entityId: ctx.domain._id };
    const where = { domainName: ctx.domain.domainName, cloud: ctx.cloudEmail };
    try {
      const { value, answer, extra } = await run();
      await audit.record(actor, { ...base, details: { ...where, outcome: 'ok', sent, answer, ...extra } });
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

  return { cf, cloudOf, contextOf, forCloud, accountIdOf, audited, pushRules };
}
export type CloudFlareCalls = ReturnType<typeof createCloudFlareCalls>;
