import { YandexApiError } from '../../../integrations/yandex-webmaster/index.ts';
import { already, done, linkTo, skipped, type Stage, type StageRunContext } from './types.ts';

const noAccount = 'No Yandex Webmaster account chosen';

/** The domain's host in its account; the verify stage adds it, the later stages need it. */
async function hostOf(ctx: StageRunContext & { domainId: string }) {
  const { host } = await ctx.deps.webmaster.domainHost(ctx.domainId);
  if (!host) throw new Error(`${ctx.domainName} is not a host of the Yandex Webmaster account yet`);
  return { accountId: ctx.input.yandexWebmasterAccountId!, hostId: host.host_id, verified: host.verified };
}

const sitemapUrl = (name: string) => `https://${name}/sitemap.xml`;

export const yandexVerifyStage: Stage = {
  key: 'yandex-verify',
  async plan(ctx) {
    if (!ctx.input.yandexWebmasterAccountId) return { outcome: 'skip', detail: noAccount };
    if (ctx.input.verification === 'DNS' && !ctx.input.cloudId)
      return {
        outcome: 'blocked',
        detail: 'DNS verification places a TXT record in the Cloudflare zone: choose a cloud account',
      };
    if (ctx.input.verification === 'HTML_FILE' && !ctx.input.serverId)
      return { outcome: 'blocked', detail: 'File verification writes a file on the server: choose a server' };
    const how = ctx.input.verification === 'DNS' ? 'a TXT record in the zone' : 'a file in the site';
    return {
      outcome: 'run',
      detail: `Add https://${ctx.domainName} as a host, verify it through ${how}, and wait for Yandex`,
    };
  },
  async run(ctx) {
    if (!ctx.input.yandexWebmasterAccountId) return skipped(noAccount);
    const links = [linkTo.yandex(ctx.domainId)];
    const before = await ctx.deps.webmaster.domainHost(ctx.domainId);
    if (before.host?.verified) return already(`${before.hostUrl} is verified`, links);
    const start = () =>
      ctx.input.verification === 'DNS'
        ? ctx.deps.webmaster.verifyThroughDns(ctx.domainId, ctx.actor)
        : ctx.deps.webmaster.verifyThroughFile(ctx.domainId, ctx.actor);
    const first = await start();
    const { accountId, hostId } = await hostOf(ctx);
    // A failed check (the TXT record not visible yet) is started again at the next look, within the wait's bounds.
    await ctx.wait(`Yandex to verify the host (${first.placed})`, async () => {
      const v = await ctx.deps.webmaster.verification(accountId, hostId);
      if (v.verification_state === 'VERIFIED') return true;
      if (v.verification_state !== 'IN_PROGRESS') await start();
      return null;
    });
    return done(`Verified ${before.hostUrl} through ${first.placed}`, links);
  },
};

export const yandexSitemapStage: Stage = {
  key: 'yandex-sitemap',
  async plan(ctx) {
    if (!ctx.input.yandexWebmasterAccountId) return { outcome: 'skip', detail: noAccount };
    if (!ctx.input.serverId || ctx.input.content.type === 'none')
      return { outcome: 'skip', detail: 'No sitemap is written without content' };
    return { outcome: 'run', detail: `Submit ${sitemapUrl(ctx.domainName)}` };
  },
  async run(ctx) {
    if (!ctx.input.yandexWebmasterAccountId) return skipped(noAccount);
    if (!ctx.input.serverId || ctx.input.content.type === 'none')
      return skipped('No sitemap is written without content');
    const { accountId, hostId } = await hostOf(ctx);
    const url = sitemapUrl(ctx.domainName);
    const links = [linkTo.yandex(ctx.domainId), linkTo.sitemap(ctx.domainName)];
    const { sitemaps } = await ctx.deps.webmaster.userSitemaps(accountId, hostId);
    if (sitemaps.some((s) => s.sitemap_url === url)) return already(`${url} is submitted`, links);
    await ctx.deps.webmaster.addUserSitemap(accountId, hostId, url, ctx.actor);
    return done(`Submitted ${url}`, links);
  },
};

export const yandexRecrawlStage: Stage = {
  key: 'yandex-recrawl',
  async plan(ctx) {
    if (!ctx.input.yandexWebmasterAccountId) return { outcome: 'skip', detail: noAccount };
    return { outcome: 'run', detail: `Ask Yandex to recrawl https://${ctx.domainName}/` };
  },
  async run(ctx) {
    if (!ctx.input.yandexWebmasterAccountId) return skipped(noAccount);
    const { accountId, hostId } = await hostOf(ctx);
    const url = `https://${ctx.domainName}/`;
    const links = [linkTo.yandex(ctx.domainId)];
    let r;
    try {
      r = await ctx.deps.webmaster.recrawl(accountId, hostId, url, ctx.actor);
    } catch (err) {
      // Yandex has the page in its queue already (an earlier launch asked).
      if (err instanceof YandexApiError && err.errorCode === 'URL_ALREADY_ADDED')
        return already(`${url} is in Yandex's recrawl queue`, links);
      throw err;
    }
    return r.backlogged
      ? done(`${url} waits for tomorrow's recrawl quota (sent on a later day)`, links)
      : done(`Asked Yandex to recrawl ${url} (task ${r.task_id})`, links);
  },
};
