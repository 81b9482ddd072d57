import type { SslMode, Tls13Mode, ZoneSetting } from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import type { CfSetting } from '../../integrations/cloudflare/index.ts';
import type { CloudFlareCalls, Ctx, DomainRef } from './cloud-flare.context.ts';

const settingOf = (s: CfSetting): ZoneSetting => ({
  result: { id: s.id, value: String(s.value), editable: s.editable, modified_on: s.modified_on ?? null },
});

/** SSL: the zone's SSL mode and TLS 1.3 settings. */
export function cloudFlareSsl({ cf, contextOf, forCloud, audited }: CloudFlareCalls) {
  /** Writes a setting; the value before (the caller's read, else read here) goes to the entry for undo. */
  const write = (
    ctx: Ctx & { zoneId: string },
    setting: 'ssl' | 'tls_1_3',
    value: SslMode | Tls13Mode,
    known?: string,
  ) =>
    forCloud(ctx, async () => {
      const before = known ?? String((await cf.getSetting(ctx.creds, ctx.zoneId, setting)).value);
      const s = settingOf(await cf.setSetting(ctx.creds, ctx.zoneId, setting, value));
      const area = setting === 'ssl' ? 'ssl' : 'tls13';
      return { value: s, answer: s.result, extra: { undo: [{ area, before, after: value }] } };
    });

  return {
    async getSetting(domainId: DomainRef, setting: 'ssl' | 'tls_1_3', actor?: Actor): Promise<ZoneSetting> {
      const ctx = await contextOf(domainId, true, actor);
      return settingOf(await forCloud(ctx, () => cf.getSetting(ctx.creds, ctx.zoneId, setting)));
    },

    /** `before`: the value the caller just read (a fleet step), else it is read here: the entry keeps it for undo. */
    async setSsl(domainId: string, value: SslMode, actor: Actor, opts: { before?: string } = {}): Promise<ZoneSetting> {
      const ctx = await contextOf(domainId, true, actor);
      return audited(actor, ctx, 'set_ssl', { zoneId: ctx.zoneId, setting: 'ssl', value }, () =>
        write(ctx, 'ssl', value, opts.before),
      );
    },

    async setTls13(
      domainId: string,
      value: Tls13Mode,
      actor: Actor,
      opts: { before?: string } = {},
    ): Promise<ZoneSetting> {
      const ctx = await contextOf(domainId, true, actor);
      return audited(actor, ctx, 'set_tls_1_3', { zoneId: ctx.zoneId, setting: 'tls_1_3', value }, () =>
        write(ctx, 'tls_1_3', value, opts.before),
      );
    },
  };
}
