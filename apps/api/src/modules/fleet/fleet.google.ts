import { FLEET_MESSAGES, plural, type Domain, type FleetAction } from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import type { GoogleSearchService } from '../google-search/google-search.service.ts';

/** What the Google fleet actions use of the Google service (decision 081). */
export type FleetGooglePort = Pick<
  GoogleSearchService,
  'state' | 'addProperty' | 'verify' | 'sitemaps' | 'submitSitemap'
>;
type GoogleAction = Extract<FleetAction, { kind: 'google_verify' | 'google_sitemap' }>;

/**
 * Steps of one Google account are paced: at least `minIntervalMs` between the starts of two of its domains' steps
 * (each step is a handful of calls), whatever the fleet's Cloudflare lanes run side by side. Google publishes no
 * per-minute quota for sites, sitemaps and Site Verification (only for Search Analytics and URL Inspection), so
 * the pace is a modest one, and a 429 that still comes is the step's failure, resumable with the plan.
 */
export function createAccountPacer(minIntervalMs: number, now = Date.now) {
  const next = new Map<string, number>();
  return async (accountId: string) => {
    const t = now();
    const at = Math.max(t, next.get(accountId) ?? 0);
    next.set(accountId, at + minIntervalMs);
    if (next.size > 1000) for (const [k, v] of next) if (v < t) next.delete(k);
    if (at > t) await new Promise((r) => setTimeout(r, at - t));
  };
}

type GoogleRead = { refused: string } | { same: string } | { before: string; after: string };

const sitemapOf = (d: Domain) => `https://${d.domainName}/sitemap.xml`;
const errorsOf = (v: string | undefined) => Number(v ?? 0) || 0;
const readAs = (siteUrl: string, level: string | null) => `${siteUrl}: ${level ?? 'not listed'}`;

export function createFleetGoogle(google: FleetGooglePort, pace: (accountId: string) => Promise<void>) {
  /** What the domain's Google side reads now, as the plan and the run compare it. */
  async function read(a: GoogleAction, d: Domain): Promise<GoogleRead> {
    const { property: p } = await google.state(d._id);
    if (a.kind === 'google_verify') {
      if (p && p.accountId !== a.accountId) return { refused: FLEET_MESSAGES.googleOtherAccount(p.siteUrl) };
      if (p?.verified) return { same: readAs(p.siteUrl, p.permissionLevel) };
      if (!p && !d.cloudZoneId && !d.serverId) return { refused: FLEET_MESSAGES.googleNoWay };
      const siteUrl = p?.siteUrl ?? (d.cloudZoneId ? `sc-domain:${d.domainName}` : `https://${d.domainName}/`);
      return { before: p ? readAs(p.siteUrl, p.permissionLevel) : 'no property', after: `${siteUrl} verified` };
    }
    if (!p) return { refused: FLEET_MESSAGES.googleNoProperty };
    if (!p.verified) return { refused: FLEET_MESSAGES.googleNotVerified };
    await pace(p.accountId);
    const url = sitemapOf(d);
    const had = (await google.sitemaps(d._id)).find((m) => m.path === url);
    if (had && errorsOf(had.errors) === 0) return { same: `${url} submitted` };
    return {
      before: had ? `${url} with ${plural(errorsOf(had.errors), 'error')}` : `${url} not submitted`,
      after: `${url} submitted`,
    };
  }

  return {
    read,
    /** Applies the action to one domain; the caller has re-read it and found it still to change. */
    async apply(a: GoogleAction, d: Domain, actor: Actor) {
      if (a.kind === 'google_verify') {
        await pace(a.accountId);
        const { property } = await google.state(d._id);
        if (!property)
          await google.addProperty(d._id, { accountId: a.accountId, kind: d.cloudZoneId ? 'domain' : 'url' }, actor);
        await google.verify(d._id, actor);
        return;
      }
      await google.submitSitemap(d._id, sitemapOf(d), actor);
    },
  };
}
