import {
  HEALTH_CHECKS,
  TRAFFIC_FALL_DAYS,
  type Domain,
  type HealthCheckKey,
  type HealthState,
  type Server,
} from '@fleetdesk/contract';
import { NotFoundError, ValidationError } from '../../http/errors.ts';
import type { HttpsProbeResult } from '../../integrations/proxy/https-probe.ts';
import type { ProxyEndpoint } from '../../integrations/proxy/index.ts';
import type { CloudFlareService } from '../cloud-flare/cloud-flare.service.ts';
import type { RegistrarService } from '../domain-registrators/registrar.service.ts';
import type { DirectAdminService } from '../direct-admin/direct-admin.service.ts';
import type { IspManagerService } from '../ispmanager/ispmanager.service.ts';
import type { ContentFilesService } from '../content-files/content-files.service.ts';
import type { YandexWebmasterService } from '../yandex-webmaster/yandex-webmaster.service.ts';
import type { GoogleSearchService } from '../google-search/google-search.service.ts';

export type CheckResult = {
  check: HealthCheckKey;
  state: HealthState;
  observed: string | null;
  expected: string | null;
  reason: string | null;
};

export type CheckDeps = {
  domains: { get(id: string): Promise<Domain> };
  servers: { get(id: string): Promise<Server> };
  cloudFlare: Pick<CloudFlareService, 'zoneStatus' | 'getSetting' | 'firewallRulesState' | 'listDnsRecords'>;
  registrar: Pick<RegistrarService, 'domainState'>;
  /** The value last set through the console (its audit trail), or null when it never was. */
  lastSetThroughConsole(
    domainId: string,
    action: 'cloudflare_set_ssl' | 'cloudflare_set_tls_1_3',
  ): Promise<string | null>;
  directAdmin: Pick<DirectAdminService, 'domainInfo'>;
  ispManager: Pick<IspManagerService, 'siteInfo'>;
  contentFiles: Pick<ContentFilesService, 'dirInfo' | 'list'>;
  proxies: { endpointsInRegion(regionId: string): Promise<ProxyEndpoint[]> };
  /** The proxy region of the domain's cloud (used when the domain has none of its own). */
  cloudRegion(cloudId: string): Promise<string | null>;
  probe(p: ProxyEndpoint, host: string): Promise<HttpsProbeResult>;
  webmaster: Pick<YandexWebmasterService, 'domainHost' | 'summary'>;
  google: Pick<GoogleSearchService, 'state' | 'sitemaps'>;
  /** The kept traffic (issue 47): the "Traffic fell" check reads it, never Cloudflare. */
  traffic: {
    /** The brand's limit in percent, or null when the check is off for it. */
    fallPercentOfBrand(brandId: string): Promise<number | null>;
    /** When the domain's traffic was last read and whether that read failed; null when never read. */
    readState(domainId: string): Promise<{ readAt: Date; error: string | null } | null>;
    /** The kept days from `since` to `until` (YYYY-MM-DD, UTC). */
    days(domainId: string, since: string, until: string): Promise<{ day: string; requests: number }[]>;
  };
  /** Accept a certificate the system does not trust (the demo's and tests' self-signed sites). */
  acceptUntrustedCertificates: boolean;
  now?: () => number;
};

const DAY = 86_400_000;
const r = (
  check: HealthCheckKey,
  state: HealthState,
  observed: string | null,
  expected: string | null,
  reason: string | null = null,
): CheckResult => ({ check, state, observed, expected, reason });
const na = (check: HealthCheckKey, reason: string) => r(check, 'na', null, null, reason);

/** Codes of refusals that mean "this domain has no such input", which makes a check not applicable. */
const MISSING_INPUT = new Set([
  'no_cloud',
  'no_cloud_zone',
  'no_registrator',
  'no_server',
  'no_panel_credentials',
  'no_ssh_key',
]);
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);

/** A check that threw: a missing input is not applicable, anything else unknown with the reason. */
const fromError = (check: HealthCheckKey, err: unknown): CheckResult =>
  err instanceof ValidationError && MISSING_INPUT.has(err.code)
    ? na(check, err.message)
    : r(check, 'unknown', null, null, messageOf(err));

const sameSet = (a: string[], b: string[]) => {
  const x = [...new Set(a.map((s) => s.toLowerCase().replace(/\.$/, '')))].sort();
  const y = [...new Set(b.map((s) => s.toLowerCase().replace(/\.$/, '')))].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
};

/** A percent in words: whole, or to a tenth when the whole one would read as the limit it is compared with. */
const pct = (x: number, limit: number) => {
  for (const digits of [0, 1, 2]) {
    const s = x.toFixed(digits);
    if (x === limit || Number(s) !== limit) return s;
  }
  return x.toFixed(3);
};

/** Runs the checks of one domain (the cheap ones, or all); each one's failure is its own result, never a throw. */
export function createHealthChecks(deps: CheckDeps) {
  const now = deps.now ?? Date.now;

  /** Per run: the zone is read once for the zone and name-server checks. */
  type Run = { domain: Domain; zone?: Promise<Awaited<ReturnType<CheckDeps['cloudFlare']['zoneStatus']>>> };
  const zoneOf = (run: Run) => (run.zone ??= deps.cloudFlare.zoneStatus(run.domain._id));

  const checks: Record<HealthCheckKey, (run: Run) => Promise<CheckResult>> = {
    async registrar_expiry({ domain: d }) {
      const k = 'registrar_expiry';
      if (!d.domainRegistratorId) return na(k, 'The domain has no registrar');
      const expected = 'more than 30 days left';
      if (!d.domainRegistratorExpirationDate)
        return r(k, 'unknown', null, expected, 'The expiry date is not known yet');
      const days = Math.floor((Date.parse(`${d.domainRegistratorExpirationDate}T00:00:00Z`) - now()) / DAY);
      const observed = `expires ${d.domainRegistratorExpirationDate} (${days < 0 ? `${-days} days ago` : `${days} days left`})`;
      if (days <= 7) return r(k, 'failing', observed, expected);
      if (days <= 30) return r(k, 'warning', observed, expected);
      return r(k, 'ok', observed, expected);
    },

    async registrar_ns(run) {
      const k = 'registrar_ns';
      const d = run.domain;
      if (!d.domainRegistratorId) return na(k, 'The domain has no registrar');
      if (!d.cloudId || !d.cloudZoneId) return na(k, 'The domain has no Cloudflare zone');
      const [zone, reg] = await Promise.all([zoneOf(run), deps.registrar.domainState(d._id)]);
      const observed = reg.nameServers.join(', ') || 'none';
      const expected = zone.nameServers.join(', ');
      return sameSet(reg.nameServers, zone.nameServers)
        ? r(k, 'ok', observed, expected)
        : r(k, 'failing', observed, expected, "The registrar's name servers are not the zone's");
    },

    async cf_zone(run) {
      const k = 'cf_zone';
      if (!run.domain.cloudId || !run.domain.cloudZoneId) return na(k, 'The domain has no Cloudflare zone');
      const z = await zoneOf(run);
      const expected = 'active';
      if (z.status === 'active') return r(k, 'ok', 'active', expected);
      if (z.status === 'pending') {
        const age = now() - Date.parse(z.createdOn);
        const observed = `pending since ${z.createdOn.slice(0, 10)}`;
        return age > DAY
          ? r(
              k,
              'failing',
              observed,
              expected,
              'Pending for more than a day: the name servers were probably not switched',
            )
          : r(k, 'warning', observed, expected, 'Pending: Cloudflare waits for the name servers');
      }
      return r(k, z.status === 'initializing' ? 'warning' : 'failing', z.status, expected);
    },

    async cf_ssl({ domain: d }) {
      return setting(d, 'cf_ssl', 'ssl', 'cloudflare_set_ssl');
    },
    async cf_tls13({ domain: d }) {
      return setting(d, 'cf_tls13', 'tls_1_3', 'cloudflare_set_tls_1_3');
    },

    async cf_waf({ domain: d }) {
      const k = 'cf_waf';
      if (!d.cloudId || !d.cloudZoneId) return na(k, 'The domain has no Cloudflare zone');
      const s = await deps.cloudFlare.firewallRulesState(d._id);
      const list = (rules: string[]) => (rules.length ? rules.join('; ') : 'no rules');
      // Rules made by others are reported; they are not drift by themselves.
      const foreign = s.foreign ? ` (and ${s.foreign} rule${s.foreign === 1 ? '' : 's'} not made by the console)` : '';
      const observed = `${list(s.ownRules)}${foreign}`;
      const expected = list(s.savedRules);
      return s.matches
        ? r(k, 'ok', observed, expected)
        : r(k, 'failing', observed, expected, "The console's rules in Cloudflare differ from the domain's rules");
    },

    async cf_dns({ domain: d }) {
      const k = 'cf_dns';
      if (!d.cloudId || !d.cloudZoneId) return na(k, 'The domain has no Cloudflare zone');
      if (!d.serverId || !d.server) return na(k, 'The domain has no server');
      const ip = d.server.IPAddress;
      const records = (await deps.cloudFlare.listDnsRecords(d._id)).result;
      const name = d.domainName.toLowerCase();
      const of = (n: string) =>
        records.filter((x) => x.name.toLowerCase() === n && ['A', 'AAAA', 'CNAME'].includes(x.type));
      const show = (n: string, rs: typeof records) =>
        `${n}: ${rs.length ? rs.map((x) => `${x.type} ${x.content}`).join(', ') : 'no record'}`;
      const apex = of(name);
      const www = of(`www.${name}`);
      const observed = `${show(name, apex)}; ${show(`www.${name}`, www)}`;
      const expected = `${name}: A ${ip}; www.${name}: A ${ip} (or CNAME ${name})`;
      const apexOk = apex.length > 0 && apex.every((x) => x.type !== 'CNAME' && x.content === ip);
      const wwwOk =
        www.length > 0 &&
        www.every((x) => (x.type === 'CNAME' ? x.content.toLowerCase().replace(/\.$/, '') === name : x.content === ip));
      if (!apexOk) return r(k, 'failing', observed, expected, 'The apex does not point at the server');
      if (!www.length) return r(k, 'warning', observed, expected, 'There is no www record');
      if (!wwwOk) return r(k, 'failing', observed, expected, 'www does not point at the server');
      return r(k, 'ok', observed, expected);
    },

    async traffic_fell({ domain: d }) {
      const k = 'traffic_fell';
      if (!d.brandId) return na(k, 'The domain has no brand');
      const limit = await deps.traffic.fallPercentOfBrand(d.brandId);
      if (limit === null) return na(k, 'Off for this brand');
      if (!d.cloudId || !d.cloudZoneId) return na(k, 'The domain has no Cloudflare zone');
      const expected = `requests fall by at most ${limit} % against the week before`;
      // Whole UTC days as the dashboard compares them: the 7 to yesterday against the 7 before (today is still
      // being counted).
      const dayOf = (offset: number) => new Date(now() + offset * DAY).toISOString().slice(0, 10);
      const since = dayOf(-TRAFFIC_FALL_DAYS);
      const until = dayOf(-1);
      const state = await deps.traffic.readState(d._id);
      if (!state) return r(k, 'unknown', null, expected, 'The traffic was not read from Cloudflare yet');
      const kept = await deps.traffic.days(d._id, since, until);
      // A read that succeeded after the window ended covers all of it (a day Cloudflare counted nothing for is
      // not kept, and is zero); otherwise only the days kept count.
      const whole = !state.error && state.readAt.toISOString().slice(0, 10) > until;
      if (!whole && kept.length < TRAFFIC_FALL_DAYS) {
        const failed = state.error ? `; the last read failed: ${state.error}` : '';
        return r(
          k,
          'unknown',
          null,
          expected,
          `Only ${kept.length} of the ${TRAFFIC_FALL_DAYS} days it compares are kept${failed}`.slice(0, 500),
        );
      }
      const half = dayOf(-TRAFFIC_FALL_DAYS / 2);
      let before = 0;
      let after = 0;
      for (const x of kept) {
        if (x.day < half) before += x.requests;
        else after += x.requests;
      }
      const n = (x: number) => x.toLocaleString('en-US');
      const numbers = `${n(before)} → ${n(after)}`;
      if (after >= before) {
        const rose = before > 0 ? ` (rose ${pct(((after - before) / before) * 100, Infinity)} %)` : '';
        return r(k, 'ok', `${numbers} requests${rose}`, expected);
      }
      const fall = ((before - after) / before) * 100;
      const shown = pct(fall, limit);
      if (fall <= limit) return r(k, 'ok', `${numbers} requests (fell ${shown} %)`, expected);
      return r(
        k,
        'failing',
        `${numbers} requests (fell ${shown} %)`,
        expected,
        `Requests fell ${shown} % (${numbers}) against the week before; the brand's limit is ${limit} %`,
      );
    },

    async site_https({ domain: d }) {
      const k = 'site_https';
      const regionId = d.parserProxyRegionId ?? (d.cloudId ? await deps.cloudRegion(d.cloudId) : null);
      if (!regionId) return na(k, 'The domain has no proxy region to check it from');
      const endpoints = await deps.proxies.endpointsInRegion(regionId);
      if (!endpoints.length) return r(k, 'unknown', null, null, 'The region has no usable proxy');
      const expected = 'HTTP 2xx or 3xx; a trusted certificate with 14 days or more left';
      let lastProxyError = '';
      for (const p of endpoints.slice(0, 3)) {
        let res: HttpsProbeResult;
        try {
          res = await deps.probe(p, d.domainName);
        } catch (err) {
          // The proxy itself failed: try the region's next one. The site failing answers the check.
          if ((err as { stage?: string }).stage === 'proxy') {
            lastProxyError = messageOf(err);
            continue;
          }
          return r(k, 'failing', 'no answer', expected, messageOf(err));
        }
        const days = res.validTo ? Math.floor((res.validTo.getTime() - now()) / DAY) : null;
        const cert = `certificate by ${res.issuer ?? 'unknown issuer'}, ${days === null ? 'end date unknown' : `${days} days left`}`;
        const observed = `HTTP ${res.status} in ${res.timeMs} ms; ${cert}`;
        if (res.status >= 500 || res.status === 0)
          return r(k, 'failing', observed, expected, `The site answered ${res.status}`);
        if (!res.trusted && !deps.acceptUntrustedCertificates)
          return r(k, 'failing', observed, expected, `The certificate is not trusted: ${res.trustError}`);
        if (days !== null && days < 3)
          return r(k, 'failing', observed, expected, 'The certificate expires within 3 days');
        if (res.status >= 400) return r(k, 'warning', observed, expected, `The site answered ${res.status}`);
        if (days !== null && days < 14)
          return r(k, 'warning', observed, expected, 'The certificate expires within 14 days');
        return r(k, 'ok', observed, expected);
      }
      return r(k, 'unknown', null, expected, `No proxy of the region answered: ${lastProxyError}`);
    },

    async site_panel({ domain: d }) {
      const k = 'site_panel';
      if (!d.serverId) return na(k, 'The domain has no server');
      const expected = 'the site exists on the panel';
      try {
        const info = await deps.directAdmin.domainInfo(d._id);
        return info.domainCreated
          ? r(k, 'ok', 'exists on DirectAdmin', expected)
          : r(k, 'failing', 'missing on DirectAdmin', expected, 'The panel has no site of this name');
      } catch (err) {
        if (!(err instanceof ValidationError && err.code === 'no_panel_credentials')) throw err;
      }
      try {
        await deps.ispManager.siteInfo(d._id);
        return r(k, 'ok', 'exists on ISPmanager', expected);
      } catch (err) {
        if (err instanceof NotFoundError)
          return r(k, 'failing', 'missing on ISPmanager', expected, 'The panel has no site of this name');
        if (err instanceof ValidationError && err.code === 'no_panel_credentials')
          return na(k, "The domain's server has no panel");
        throw err;
      }
    },

    async site_content({ domain: d }) {
      const k = 'site_content';
      if (!d.serverId) return na(k, 'The domain has no server');
      const expected = 'the content directory exists and is not empty';
      let dir;
      try {
        dir = await deps.contentFiles.dirInfo(d._id);
      } catch (err) {
        // A server without SSH access or domains path cannot be looked at: not applicable.
        if (err instanceof ValidationError) return na(k, err.message);
        throw err;
      }
      if (!dir.domainDirExists) return r(k, 'failing', `${dir.domainDirName} does not exist`, expected);
      const entries = await deps.contentFiles.list(d._id, '');
      return entries.length
        ? r(k, 'ok', `${dir.domainDirName}: ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`, expected)
        : r(k, 'failing', `${dir.domainDirName} is empty`, expected);
    },

    async server({ domain: d }) {
      const k = 'server';
      if (!d.serverId) return na(k, 'The domain has no server');
      const s = await deps.servers.get(d.serverId);
      const expected = 'online; 10% or more free space; below its domain limit';
      const free = s.freeSpace !== null && s.totalSpace ? Math.round((s.freeSpace / s.totalSpace) * 1000) / 10 : null;
      const cap = s.domainsLimitQty > 0 ? `${s.domainsQty} of ${s.domainsLimitQty} domains` : `${s.domainsQty} domains`;
      const observed = `${s.status}; ${free === null ? 'free space unknown' : `${free}% free`}; ${cap}`;
      if (s.status === 'offline') return r(k, 'failing', observed, expected, 'The server does not answer over SSH');
      if (s.status !== 'online') return r(k, 'unknown', observed, expected, 'The server was not checked yet');
      if (free !== null && free < 10) return r(k, 'warning', observed, expected, 'Less than 10% free space');
      if (s.domainsLimitQty > 0 && s.domainsQty > s.domainsLimitQty)
        return r(k, 'warning', observed, expected, 'More domains than its limit');
      return r(k, 'ok', observed, expected);
    },

    async yandex_host({ domain: d }) {
      const k = 'yandex_host';
      if (!d.yandexWebmasterAccountId) return na(k, 'The domain has no Yandex Webmaster account');
      const expected = 'verified; no FATAL or CRITICAL problems';
      const { host } = await deps.webmaster.domainHost(d._id);
      if (!host) return r(k, 'failing', 'not added to the account', expected, 'The host is not in the account');
      if (!host.verified)
        return r(k, 'failing', 'not verified', expected, 'The host lost (or never had) its verification');
      const summary = await deps.webmaster.summary(d.yandexWebmasterAccountId, host.host_id);
      const problems = (summary.site_problems ?? {}) as Record<string, number | undefined>;
      const fatal = problems.FATAL ?? 0;
      const critical = problems.CRITICAL ?? 0;
      const observed = `verified; ${fatal} FATAL, ${critical} CRITICAL`;
      if (fatal > 0) return r(k, 'failing', observed, expected, 'Yandex reports FATAL site problems');
      if (critical > 0) return r(k, 'warning', observed, expected, 'Yandex reports CRITICAL site problems');
      return r(k, 'ok', observed, expected);
    },

    async google_property({ domain: d }) {
      const k = 'google_property';
      const { property: p } = await deps.google.state(d._id);
      if (!p) return na(k, 'The domain has no Google Search Console property');
      const expected = `${p.siteUrl} verified for ${p.clientEmail}`;
      const observed = `${p.siteUrl}: ${p.permissionLevel ?? 'not listed'}`;
      if (p.verified) return r(k, 'ok', observed, expected);
      const reason = p.permissionLevel
        ? `Google lists ${p.clientEmail} as ${p.permissionLevel}: the property lost (or never had) its verification`
        : `Google does not list the property for ${p.clientEmail}`;
      return r(k, 'failing', observed, expected, reason);
    },

    async google_sitemaps({ domain: d }) {
      const k = 'google_sitemaps';
      const { property: p } = await deps.google.state(d._id);
      if (!p) return na(k, 'The domain has no Google Search Console property');
      if (!p.verified) return na(k, 'The property is not verified: Google shows its sitemaps to its users only');
      const list = await deps.google.sitemaps(d._id);
      const count = (v: string | undefined) => Math.max(0, Number(v ?? 0) || 0);
      const sum = (xs: typeof list, f: 'errors' | 'warnings') => xs.reduce((a, m) => a + count(m[f]), 0);
      const withErrors = list.filter((m) => count(m.errors) > 0);
      const withWarnings = list.filter((m) => count(m.warnings) > 0);
      const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
      const observed = [
        list.length ? plural(list.length, 'sitemap') : 'no sitemap submitted',
        ...(withErrors.length ? [`${withErrors.length} with ${plural(sum(withErrors, 'errors'), 'error')}`] : []),
        ...(withWarnings.length
          ? [`${withWarnings.length} with ${plural(sum(withWarnings, 'warnings'), 'warning')}`]
          : []),
      ].join('; ');
      const expected = 'no sitemap with errors or warnings';
      const paths = (xs: typeof list) =>
        xs
          .slice(0, 3)
          .map((m) => m.path)
          .join(', ') + (xs.length > 3 ? ` and ${xs.length - 3} more` : '');
      if (withErrors.length)
        return r(k, 'failing', observed, expected, `Google reports errors in ${paths(withErrors)}`);
      if (withWarnings.length)
        return r(k, 'warning', observed, expected, `Google reports warnings in ${paths(withWarnings)}`);
      return r(k, 'ok', observed, expected);
    },
  };

  async function setting(
    d: Domain,
    k: HealthCheckKey,
    name: 'ssl' | 'tls_1_3',
    action: 'cloudflare_set_ssl' | 'cloudflare_set_tls_1_3',
  ) {
    if (!d.cloudId || !d.cloudZoneId) return na(k, 'The domain has no Cloudflare zone');
    const [expected, current] = await Promise.all([
      deps.lastSetThroughConsole(d._id, action),
      deps.cloudFlare.getSetting(d._id, name),
    ]);
    const observed = String(current.result.value);
    if (expected === null) return r(k, 'na', observed, null, 'Never set through the console');
    return observed === expected
      ? r(k, 'ok', observed, expected)
      : r(k, 'failing', observed, expected, 'Changed outside the console since it was last set here');
  }

  return {
    /** The checks of `keys` for the domain, run side by side; each result stands alone. */
    async run(domainId: string, keys: HealthCheckKey[]): Promise<CheckResult[]> {
      const domain = await deps.domains.get(domainId);
      const run: Run = { domain };
      return Promise.all(
        keys.map(async (k) => {
          try {
            return await checks[k](run);
          } catch (err) {
            return fromError(k, err);
          }
        }),
      );
    },
  };
}
export type HealthChecks = ReturnType<typeof createHealthChecks>;

export const CHEAP_CHECKS = HEALTH_CHECKS.filter((c) => c.cheap).map((c) => c.key);
export const ALL_CHECKS = HEALTH_CHECKS.map((c) => c.key);
/** Cloudflare calls of one domain's checks: the budget the periodic job plans with. */
export const CLOUDFLARE_CALLS = { cheap: 1, full: 5 } as const;
