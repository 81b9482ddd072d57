import type { PurgeCacheResult } from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import type { CloudFlareCalls } from './cloud-flare.context.ts';

/** Cache: purge everything the zone has cached. */
export function cloudFlareCache({ cf, contextOf, forCloud, audited }: CloudFlareCalls) {
  return {
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
