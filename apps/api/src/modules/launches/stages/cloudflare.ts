import { SSL_MODE_LABELS, renderDnsTemplate, type LaunchDnsRecord, type SslMode } from '@fleetdesk/contract';
import { ConflictError } from '../../../http/errors.ts';
import { contentKey } from '../../fleet/dns-template-diff.ts';
import { already, done, linkTo, skipped, type Stage, type StagePlanContext } from './types.ts';

/** The launch's records for its domain: the DNS templates' one renderer (names made full, as Cloudflare lists them). */
export function renderRecords(records: LaunchDnsRecord[], domain: string, serverIp: string | null): LaunchDnsRecord[] {
  return renderDnsTemplate(records, { domain, serverIp: serverIp ?? '' }).map((d) => ({
    ...d,
    type: d.type as LaunchDnsRecord['type'],
    proxied: d.proxied ?? false,
    ttl: d.ttl ?? 1,
  }));
}
/** Cloudflare's value in the form's words ("strict" is "Full strict"). */
const sslLabel = (v: unknown) => SSL_MODE_LABELS[v as SslMode] ?? String(v);
const needsServerIp = (records: LaunchDnsRecord[]) =>
  records.some((r) => `${r.name} ${r.content}`.includes('{serverIp}'));

async function serverIpOf(ctx: Pick<StagePlanContext, 'deps' | 'input'>) {
  return ctx.input.serverId ? (await ctx.deps.servers.get(ctx.input.serverId)).IPAddress : null;
}

const shown = (r: LaunchDnsRecord) => `${r.type} ${r.name} → ${r.content}`;
/**
 * Whether the zone holds a launch record already: content compared as the fleet compares it (contentKey), since
 * Cloudflare answers CAA, SRV, URI, HTTPS, … with `data` and the content rebuilt from it is written its own way
 * (`0 issue "letsencrypt.org"` for `0 issue letsencrypt.org`; an SRV's priority apart). Without case, as before:
 * the stage only adds, and a record that differs from one in the zone by case alone is not worth a refused post.
 */
const sameRecord = (a: { type: string; name: string; content: string }, b: LaunchDnsRecord) => {
  const type = b.type.toUpperCase();
  return (
    a.type.toUpperCase() === type &&
    a.name.toLowerCase() === b.name.toLowerCase() &&
    contentKey(type, a.content).toLowerCase() === contentKey(type, b.content).toLowerCase()
  );
};

export const zoneStage: Stage = {
  key: 'zone',
  async plan(ctx) {
    if (!ctx.input.cloudId) return { outcome: 'skip', detail: 'No cloud account chosen' };
    const email = await ctx.deps.cloudEmail(ctx.input.cloudId);
    const id = (await ctx.deps.domains.idsByNames([ctx.domainName])).get(ctx.domainName);
    const d = id ? await ctx.deps.domains.get(id) : null;
    if (d?.cloudZoneId && d.cloudId && d.cloudId !== ctx.input.cloudId)
      return {
        outcome: 'blocked',
        detail: `The zone of ${ctx.domainName} is already in another account (${d.cloud?.email ?? d.cloudId}), not ${email}`,
      };
    if (d?.cloudZoneId) return { outcome: 'done', detail: `The zone ${d.cloudZoneId} is linked` };
    return { outcome: 'run', detail: `Create the zone in ${email}'s account (or link it when it is there)` };
  },
  async run(ctx) {
    if (!ctx.input.cloudId) return skipped('No cloud account chosen');
    const d = await ctx.deps.domains.get(ctx.domainId);
    const links = [linkTo.cloud(ctx.domainId)];
    if (d.cloudZoneId) return already(`the zone ${d.cloudZoneId} is linked`, links);
    if (d.cloudId !== ctx.input.cloudId)
      await ctx.deps.domains.update(ctx.domainId, { cloudId: ctx.input.cloudId } as never, ctx.actor);
    try {
      const z = await ctx.deps.cloudFlare.createZone(ctx.domainId, ctx.actor);
      return done(`Created the zone ${z.cloudZoneId} (name servers ${z.nameServers.join(', ')})`, links);
    } catch (err) {
      // The zone is in the account already (an earlier run, or made by hand): link it.
      const existing = err instanceof ConflictError ? err.fields?.cloudZoneId : undefined;
      if (!existing) throw err;
      await ctx.deps.cloudFlare.linkZone(ctx.domainId, existing, ctx.actor);
      return already(`the zone ${existing} was in the account; linked it`, links);
    }
  },
};

export const zoneActiveStage: Stage = {
  key: 'zone-active',
  async plan(ctx) {
    if (!ctx.input.cloudId) return { outcome: 'skip', detail: 'No cloud account chosen' };
    return { outcome: 'run', detail: 'Wait until Cloudflare says the zone is active (the name servers point at it)' };
  },
  async run(ctx) {
    if (!ctx.input.cloudId) return skipped('No cloud account chosen');
    const first = await ctx.deps.cloudFlare.zoneStatus(ctx.domainId, ctx.actor);
    if (first.status === 'active') return already('the zone is active');
    await ctx.wait(
      `Cloudflare to activate the zone (now ${first.status}; it needs the name servers ${first.nameServers.join(', ')})`,
      async () => ((await ctx.deps.cloudFlare.zoneStatus(ctx.domainId, ctx.actor)).status === 'active' ? true : null),
    );
    return done('The zone is active', [linkTo.cloud(ctx.domainId)]);
  },
};

export const dnsStage: Stage = {
  key: 'dns',
  async plan(ctx) {
    if (!ctx.input.cloudId) return { outcome: 'skip', detail: 'No cloud account chosen' };
    if (!ctx.input.dnsRecords.length) return { outcome: 'skip', detail: 'No DNS records to add' };
    const ip = await serverIpOf(ctx);
    if (!ip && needsServerIp(ctx.input.dnsRecords))
      return { outcome: 'blocked', detail: 'The records use {serverIp}, but no server is chosen' };
    const records = renderRecords(ctx.input.dnsRecords, ctx.domainName, ip);
    return { outcome: 'run', detail: `Add ${records.map(shown).join('; ')}` };
  },
  async run(ctx) {
    if (!ctx.input.cloudId) return skipped('No cloud account chosen');
    if (!ctx.input.dnsRecords.length) return skipped('No DNS records to add');
    const ip = await serverIpOf(ctx);
    if (!ip && needsServerIp(ctx.input.dnsRecords))
      throw new Error('The records use {serverIp}, but no server is chosen');
    const wanted = renderRecords(ctx.input.dnsRecords, ctx.domainName, ip);
    const existing = (await ctx.deps.cloudFlare.listDnsRecords(ctx.domainId, ctx.actor)).result;
    const missing = wanted.filter((w) => !existing.some((e) => sameRecord(e, w)));
    const links = [linkTo.cloud(ctx.domainId)];
    if (!missing.length) return already(`all ${wanted.length} records are in the zone`, links);
    await ctx.deps.cloudFlare.changeDnsRecords(ctx.domainId, { deletes: [], patches: [], posts: missing }, ctx.actor);
    const kept = wanted.length - missing.length;
    return done(`Added ${missing.map(shown).join('; ')}${kept ? ` (${kept} were there already)` : ''}`, links);
  },
};

export const sslStage: Stage = {
  key: 'ssl',
  async plan(ctx) {
    if (!ctx.input.cloudId) return { outcome: 'skip', detail: 'No cloud account chosen' };
    if (!ctx.input.sslMode && !ctx.input.tls13) return { outcome: 'skip', detail: 'No SSL mode or TLS 1.3 asked for' };
    const parts = [
      ctx.input.sslMode ? `SSL mode ${SSL_MODE_LABELS[ctx.input.sslMode]}` : null,
      ctx.input.tls13 ? 'TLS 1.3 on' : null,
    ];
    return { outcome: 'run', detail: `Set ${parts.filter(Boolean).join(' and ')}` };
  },
  async run(ctx) {
    if (!ctx.input.cloudId) return skipped('No cloud account chosen');
    const { sslMode, tls13 } = ctx.input;
    if (!sslMode && !tls13) return skipped('No SSL mode or TLS 1.3 asked for');
    const did: string[] = [];
    const had: string[] = [];
    if (sslMode) {
      const now = await ctx.deps.cloudFlare.getSetting(ctx.domainId, 'ssl', ctx.actor);
      if (now.result.value === sslMode) had.push(`SSL mode ${SSL_MODE_LABELS[sslMode]}`);
      else {
        await ctx.deps.cloudFlare.setSsl(ctx.domainId, sslMode, ctx.actor);
        did.push(`SSL mode ${SSL_MODE_LABELS[sslMode]} (was ${sslLabel(now.result.value)})`);
      }
    }
    if (tls13) {
      const now = await ctx.deps.cloudFlare.getSetting(ctx.domainId, 'tls_1_3', ctx.actor);
      if (now.result.value === 'on') had.push('TLS 1.3 on');
      else {
        await ctx.deps.cloudFlare.setTls13(ctx.domainId, 'on', ctx.actor);
        did.push('TLS 1.3 on');
      }
    }
    const links = [linkTo.cloud(ctx.domainId)];
    if (!did.length) return already(had.join(', '), links);
    return done(`Set ${did.join(', ')}${had.length ? `; already ${had.join(', ')}` : ''}`, links);
  },
};

export const wafStage: Stage = {
  key: 'waf',
  async plan(ctx) {
    if (!ctx.input.cloudId) return { outcome: 'skip', detail: 'No cloud account chosen' };
    const n = ctx.input.firewallRules.length;
    if (!n) return { outcome: 'skip', detail: 'No firewall rule templates chosen' };
    return {
      outcome: 'run',
      detail: `Save ${n} firewall rule template${n === 1 ? '' : 's'} and push them to the zone`,
    };
  },
  async run(ctx) {
    if (!ctx.input.cloudId) return skipped('No cloud account chosen');
    const wanted = ctx.input.firewallRules;
    if (!wanted.length) return skipped('No firewall rule templates chosen');
    const saved = await ctx.deps.domains.getFirewallRules(ctx.domainId);
    const missing = wanted.filter((w) => !saved.some((s) => s.ruleId === w.ruleId && s.priority === w.priority));
    const links = [linkTo.cloud(ctx.domainId)];
    if (!missing.length && (await ctx.deps.cloudFlare.firewallRulesState(ctx.domainId, ctx.actor)).matches)
      return already(`the ${saved.length} rules are saved and in the zone`, links);
    if (missing.length) {
      // The launch's templates join the domain's own (a template chosen twice keeps the launch's priority).
      const rules = [
        ...saved
          .filter((s) => !wanted.some((w) => w.ruleId === s.ruleId))
          .map((s) => ({ ruleId: s.ruleId, priority: s.priority })),
        ...wanted,
      ];
      await ctx.deps.domains.saveFirewallRules(ctx.domainId, { cloudFirewallRules: rules }, ctx.actor);
    }
    const pushed = await ctx.deps.cloudFlare.updateFirewallRules(ctx.domainId, ctx.actor);
    // Cloudflare's answer already says how many rules went where ("Pushed 3 firewall rules to Cloudflare").
    return done(pushed.message, links);
  },
};
