import { cloudFlareAnalytics } from './cloud-flare.analytics.ts';
import { createCloudFlareCalls, type CloudFlareDeps } from './cloud-flare.context.ts';
import { cloudFlareCache } from './cloud-flare.cache.ts';
import { cloudFlareDns } from './cloud-flare.dns.ts';
import { cloudFlareRedirects } from './cloud-flare.redirects.ts';
import { cloudFlareSsl } from './cloud-flare.ssl.ts';
import { cloudFlareWaf } from './cloud-flare.waf.ts';
import { cloudFlareZones } from './cloud-flare.zones.ts';

export { CLOUD_FLARE_TEXT, REDIRECT_PHASE, WAF_PHASE } from './cloud-flare.context.ts';

/**
 * The console's Cloudflare actions on a domain, for the domain's cloud: one service, each concern in its own file
 * (as the routes read), all sharing the calls of cloud-flare.context.ts.
 */
export function createCloudFlareService(deps: CloudFlareDeps) {
  const calls = createCloudFlareCalls(deps);
  return {
    ...cloudFlareZones(calls, deps),
    ...cloudFlareWaf(calls, deps),
    ...cloudFlareSsl(calls),
    ...cloudFlareDns(calls),
    ...cloudFlareRedirects(calls),
    ...cloudFlareCache(calls),
    ...cloudFlareAnalytics(calls),
  };
}
export type CloudFlareService = ReturnType<typeof createCloudFlareService>;
