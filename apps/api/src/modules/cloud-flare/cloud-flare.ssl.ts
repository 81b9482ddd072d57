import type { SslMode, Tls13Mode, ZoneSetting } from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import type { CfSetting } from '../../integrations/cloudflare/index.ts';
import type { CloudFlareCalls, DomainRef } from './cloud-flare.context.ts';

const settingOf = (s: CfSetting): ZoneSetting => ({
  result: { id: s.id, value: String(s.value), editable: s.editable, modified_on: s.modified_on ?? null },
});

/** SSL: the zone's SSL mode and TLS 1.3 settings. */
export function cloudFlareSsl({ cf, contextOf, forCloud, audited }: CloudFlareCalls) {
  return {
    async getSetting(domainId: DomainRef, setting: 'ssl' | 'tls_1_3', actor?: Actor): Promise<ZoneSetting> {
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
  };
}
