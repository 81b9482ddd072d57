import {
  FLEET_MESSAGES,
  SSL_MODE_LABELS,
  SSL_MODES,
  TLS_1_3_LABELS,
  TLS_1_3_VALUES,
  hasAnyRule,
  type Domain,
  type SslMode,
  type Tls13Mode,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { ForbiddenError, ValidationError } from '../../http/errors.ts';
import type { CloudFlareService } from '../cloud-flare/cloud-flare.service.ts';
import type { RegistrarService } from '../domain-registrators/registrar.service.ts';
import type { YandexWebmasterService } from '../yandex-webmaster/yandex-webmaster.service.ts';
import type { UndoStep } from '../fleet/fleet.undo.ts';
import type { GoogleSearchService } from '../google-search/google-search.service.ts';
import type { CheckResult } from './health.checks.ts';

export type FixDeps = {
  domains: { get(id: string): Promise<Domain> };
  cloudFlare: Pick<CloudFlareService, 'setSsl' | 'setTls13' | 'pushFirewallRules'>;
  registrar: Pick<RegistrarService, 'setNameServers'>;
  webmaster: Pick<YandexWebmasterService, 'verifyThroughDns' | 'verifyThroughFile'>;
  google: Pick<GoogleSearchService, 'verify' | 'sitemaps' | 'submitSitemap'>;
};

/** Sitemaps a fix submits again at most (Google lists up to 500 a property; each is one call). */
const MAX_SITEMAPS_RESUBMITTED = 50;

/**
 * Re-verifying a Yandex host is the Yandex Webmaster area's action, a Google property's or sitemap's the Google
 * Search Console area's: a domains-only user may not start them.
 */
export function assertMayFix(check: string, actor: Actor) {
  if (check === 'yandex_host' && !hasAnyRule(actor.rules, 'cnv:yandex-webmaster'))
    throw new ForbiddenError(FLEET_MESSAGES.yandexRule);
  if ((check === 'google_property' || check === 'google_sitemaps') && !hasAnyRule(actor.rules, 'cnv:google-search'))
    throw new ForbiddenError(FLEET_MESSAGES.googleRule);
}

/**
 * What a fix did: whether it changed anything at the provider and what (`made`: "SSL mode set to Full strict"), and
 * what it waits for when the provider completes it later.
 */
export type FixApplied = {
  changed: boolean;
  made: string | null;
  pending: string | null;
  /** What the fix changed, as a revert of its fleet run puts it back; absent where nothing can (name servers, Yandex). */
  undo?: UndoStep[];
};

/**
 * Each fixable check's repair: the existing single-domain action (audited as it always is), given the value the
 * check expects, the same one whether Fix on the Health tab or a step of a "Fix all" fleet plan calls it.
 */
export function createHealthFixes(deps: FixDeps) {
  const oneOf = <T extends string>(values: readonly T[], v: string | null): T => {
    if (v === null || !(values as readonly string[]).includes(v))
      throw new ValidationError(FLEET_MESSAGES.healthNoExpected, undefined, 'health_no_expected');
    return v as T;
  };
  return {
    /**
     * Applies the fix. For a fix the provider completes later (Yandex checks the TXT record or file when it
     * gets to it), `pending` says what was done and what is awaited; `changed` whether this call changed anything.
     */
    async apply(domainId: string, r: CheckResult, actor: Actor): Promise<FixApplied> {
      // Each action below is a write the provider accepted (it throws otherwise), made because the check read a
      // value other than the expected one: it changed something there.
      const made = (what: string): FixApplied => ({ changed: true, made: what, pending: null });
      switch (r.check) {
        case 'registrar_ns':
          await deps.registrar.setNameServers(domainId, actor);
          return made(`name servers set at the registrar to ${r.expected ?? "the zone's"}`);
        case 'cf_ssl': {
          const mode = oneOf<SslMode>(SSL_MODES, r.expected);
          const before = r.observed ?? undefined;
          await deps.cloudFlare.setSsl(domainId, mode, actor, { before });
          const undo: UndoStep[] | undefined = before ? [{ area: 'ssl', before, after: mode }] : undefined;
          return { ...made(`SSL mode set to ${SSL_MODE_LABELS[mode]}`), undo };
        }
        case 'cf_tls13': {
          const v = oneOf<Tls13Mode>(TLS_1_3_VALUES, r.expected);
          const before = r.observed ?? undefined;
          await deps.cloudFlare.setTls13(domainId, v, actor, { before });
          const undo: UndoStep[] | undefined = before ? [{ area: 'tls13', before, after: v }] : undefined;
          return { ...made(`TLS 1.3 set to ${TLS_1_3_LABELS[v]}`), undo };
        }
        case 'cf_waf': {
          const { undo } = await deps.cloudFlare.pushFirewallRules(domainId, actor);
          return { ...made("the domain's WAF rules pushed to Cloudflare"), undo: [undo] };
        }
        case 'yandex_host': {
          // Through the zone's TXT record where the domain has a zone, else the verification file.
          const d = await deps.domains.get(domainId);
          const dnsWay = !!(d.cloudId && d.cloudZoneId);
          const v = dnsWay
            ? await deps.webmaster.verifyThroughDns(domainId, actor)
            : await deps.webmaster.verifyThroughFile(domainId, actor);
          const placed = dnsWay ? 'DNS record added' : 'verification file written';
          if (v.verification.verification_state !== 'IN_PROGRESS')
            return { changed: v.started, made: v.started ? placed : null, pending: null };
          return {
            changed: v.started,
            made: v.started ? placed : null,
            pending: v.started
              ? `${dnsWay ? 'DNS record added' : 'Verification file written'}; waiting for Yandex to verify`
              : 'Verification already under way; waiting for Yandex to verify',
          };
        }
        case 'google_property': {
          // Google's Site Verification answers at once: the TXT record or the file is placed, then checked.
          const v = await deps.google.verify(domainId, actor);
          return made(`${v.siteUrl} verified again through ${v.method === 'DNS_TXT' ? 'a DNS TXT record' : 'a file'}`);
        }
        case 'google_sitemaps': {
          const bad = (await deps.google.sitemaps(domainId))
            .filter((m) => Number(m.errors ?? 0) > 0)
            .slice(0, MAX_SITEMAPS_RESUBMITTED);
          if (!bad.length) return { changed: false, made: null, pending: null };
          let after: Awaited<ReturnType<FixDeps['google']['submitSitemap']>> = [];
          for (const m of bad) after = await deps.google.submitSitemap(domainId, m.path, actor);
          const what = `${bad.length === 1 ? bad[0]!.path : `${bad.length} sitemaps`} submitted to Google again`;
          // Google reads a submitted sitemap later: until it has, the errors read are those of its last read.
          const waiting = after.some((m) => m.isPending && bad.some((b) => b.path === m.path));
          return { changed: true, made: what, pending: waiting ? `${what}; waiting for Google to read it` : null };
        }
        default:
          throw new ValidationError('This check has no fix in the console', { check: r.check }, 'health_no_fix');
      }
    },
  };
}
export type HealthFixes = ReturnType<typeof createHealthFixes>;
