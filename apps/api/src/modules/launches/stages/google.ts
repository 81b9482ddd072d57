import { plural } from '@fleetdesk/contract';
import { GoogleApiError } from '../../../integrations/google-search/index.ts';
import { NotFoundError } from '../../../http/errors.ts';
import { already, done, linkTo, skipped, type Stage, type StageRunContext } from './types.ts';

const noAccount = 'No Google account chosen';
const noContent = 'No sitemap is written without content';

const sitemapUrl = (name: string) => `https://${name}/sitemap.xml`;
const countOf = (v: string | undefined) => Number(v ?? 0) || 0;

/** Google's answer when the TXT record or the file is not seen yet: the stage looks again, within its wait. */
const notSeenYet = (err: unknown) =>
  err instanceof GoogleApiError && err.httpStatus === 400 && /could not be found/i.test(err.googleMessage);

/** The property the launch adds: a domain property where the domain has a zone, else the URL-prefix one. */
async function kindFor(ctx: StageRunContext & { domainId: string }) {
  const d = await ctx.deps.domains.get(ctx.domainId);
  return d.cloudZoneId ? ('domain' as const) : ('url' as const);
}

export const googleVerifyStage: Stage = {
  key: 'google-verify',
  async plan(ctx) {
    const accountId = ctx.input.googleSearchAccountId;
    if (!accountId) return { outcome: 'skip', detail: noAccount };
    try {
      await ctx.deps.google.get(accountId);
    } catch (err) {
      if (err instanceof NotFoundError) return { outcome: 'blocked', detail: 'The Google account does not exist' };
      throw err;
    }
    if (ctx.input.cloudId)
      return {
        outcome: 'run',
        detail: `Add sc-domain:${ctx.domainName} to Search Console and verify it through a TXT record in the zone`,
      };
    if (ctx.input.serverId)
      return {
        outcome: 'run',
        detail: `Add https://${ctx.domainName}/ to Search Console and verify it through a file in the site`,
      };
    return {
      outcome: 'blocked',
      detail: 'Verifying with Google needs a Cloudflare zone (a TXT record) or a server (a file): choose one',
    };
  },
  async run(ctx) {
    const accountId = ctx.input.googleSearchAccountId;
    if (!accountId) return skipped(noAccount);
    const links = [linkTo.google(ctx.domainId)];
    const before = await ctx.deps.google.state(ctx.domainId);
    if (before.property?.verified && before.property.accountId === accountId)
      return already(`${before.property.siteUrl} is verified`, links);
    // Adding is idempotent for the same account and kind; another account's property is the service's 409.
    const added = before.property
      ? before
      : await ctx.deps.google.addProperty(ctx.domainId, { accountId, kind: await kindFor(ctx) }, ctx.actor);
    const siteUrl = added.property!.siteUrl;
    const v = await ctx.wait(`Google to find the verification token of ${siteUrl}`, async () => {
      try {
        return await ctx.deps.google.verify(ctx.domainId, ctx.actor);
      } catch (err) {
        if (notSeenYet(err)) return null;
        throw err;
      }
    });
    // `placed` reads `TXT example.com "google-site-verification=…"` or the file's name.
    const how = v.method === 'DNS_TXT' ? v.placed : `the file ${v.placed}`;
    return done(`Added and verified ${siteUrl} through ${how}`, links);
  },
};

export const googleSitemapStage: Stage = {
  key: 'google-sitemap',
  async plan(ctx) {
    if (!ctx.input.googleSearchAccountId) return { outcome: 'skip', detail: noAccount };
    if (!ctx.input.serverId || ctx.input.content.type === 'none') return { outcome: 'skip', detail: noContent };
    return { outcome: 'run', detail: `Submit ${sitemapUrl(ctx.domainName)} to Google` };
  },
  async run(ctx) {
    if (!ctx.input.googleSearchAccountId) return skipped(noAccount);
    if (!ctx.input.serverId || ctx.input.content.type === 'none') return skipped(noContent);
    const url = sitemapUrl(ctx.domainName);
    const links = [linkTo.google(ctx.domainId), linkTo.sitemap(ctx.domainName)];
    const had = (await ctx.deps.google.sitemaps(ctx.domainId)).find((m) => m.path === url);
    if (had && countOf(had.errors) === 0) return already(`${url} is submitted`, links);
    const after = (await ctx.deps.google.submitSitemap(ctx.domainId, url, ctx.actor)).find((m) => m.path === url);
    if (after && countOf(after.errors) > 0)
      throw new Error(`Google read ${url} with ${plural(countOf(after.errors), 'error')}: see the domain's Google tab`);
    return done(after?.isPending ? `Submitted ${url}; Google reads it later` : `Submitted ${url}`, links);
  },
};
