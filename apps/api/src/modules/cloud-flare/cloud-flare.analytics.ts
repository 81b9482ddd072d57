import type { CfTrafficPeriod } from '../../integrations/cloudflare/index.ts';
import type { Actor } from '../../http/context.ts';
import type { CloudFlareCalls } from './cloud-flare.context.ts';

/** Analytics: the zone's traffic per day from the GraphQL Analytics API (a read: no audit entry). */
export function cloudFlareAnalytics({ cf, contextOf, forCloud }: CloudFlareCalls) {
  return {
    /** Days `since`..`until` (YYYY-MM-DD, inclusive) of the domain's zone, with the zone they came from. */
    async zoneTrafficDays(
      domainId: string,
      range: { since: string; until: string },
      actor?: Actor,
    ): Promise<{ zoneId: string; days: CfTrafficPeriod[] }> {
      const ctx = await contextOf(domainId, true, actor);
      const days = await forCloud(ctx, () => cf.zoneTrafficDays(ctx.creds, ctx.zoneId, range));
      return { zoneId: ctx.zoneId, days };
    },
  };
}
