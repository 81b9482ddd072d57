import type { Server } from '@fleetdesk/contract';
import { AppError, NotFoundError } from '../../../http/errors.ts';
import { copyTree } from '../../../files/content/index.ts';
import { PARSING_MARKER, domainDirOf, generateSitemap, requireDir } from '../../content-files/domain-site.ts';
import { already, done, linkTo, skipped, type Stage, type StagePlanContext, type StageRunContext } from './types.ts';

type Panel = 'direct-admin' | 'isp-manager';

/** The panel the server names (DirectAdmin first when it names both); null without one. */
const panelOf = (s: Server): Panel | null =>
  s.directAdminUri && s.directAdminUsername
    ? 'direct-admin'
    : s.ispmanagerUri && s.ispmanagerUsername
      ? 'isp-manager'
      : null;
const PANEL_NAMES: Record<Panel, string> = { 'direct-admin': 'DirectAdmin', 'isp-manager': 'ISPmanager' };

/** Text files in which the template's domain name is replaced by the new one (at most this size each). */
const TEXT_FILE = /\.(html?|css|js|mjs|json|xml|txt|php|svg|webmanifest|md)$/i;
const REPLACE_MAX_BYTES = 5 * 1024 * 1024;
const COPY_NOTE_EVERY_MS = 1000;
/** Files a launch itself writes into the directory; they do not make the content "there already". */
const OWN_FILES = new Set(['sitemap.xml', PARSING_MARKER]);
const OWN_FILE = /^(sitemap[\w-]*\.xml|yandex_[0-9a-f]+\.html)$/i;

export const siteStage: Stage = {
  key: 'site',
  async plan(ctx) {
    if (!ctx.input.serverId) return { outcome: 'skip', detail: 'No server chosen' };
    const s = await ctx.deps.servers.get(ctx.input.serverId);
    const panel = panelOf(s);
    if (!panel) return { outcome: 'skip', detail: `The server ${s.IPAddress} has no panel` };
    return { outcome: 'run', detail: `Create the site on ${PANEL_NAMES[panel]} of ${s.IPAddress}` };
  },
  async run(ctx) {
    if (!ctx.input.serverId) return skipped('No server chosen');
    const s = await ctx.deps.servers.get(ctx.input.serverId);
    const panel = panelOf(s);
    if (!panel) return skipped(`The server ${s.IPAddress} has no panel`);
    const links = [linkTo.panel(ctx.domainId, panel)];
    if (panel === 'direct-admin') {
      if ((await ctx.deps.directAdmin.domainInfo(ctx.domainId)).domainCreated)
        return already(`the site is on DirectAdmin of ${s.IPAddress}`, links);
      await ctx.deps.directAdmin.createDomain(ctx.domainId, ctx.actor);
      return done(`Created the site on DirectAdmin of ${s.IPAddress}`, links);
    }
    try {
      await ctx.deps.ispManager.siteInfo(ctx.domainId);
      return already(`the site is on ISPmanager of ${s.IPAddress}`, links);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
    await ctx.deps.ispManager.createSite(ctx.domainId, ctx.actor);
    return done(`Created the site on ISPmanager of ${s.IPAddress}`, links);
  },
};

async function copySourceProblem(ctx: StagePlanContext): Promise<string | null> {
  if (ctx.input.content.type !== 'copy') return null;
  try {
    const src = await ctx.deps.domains.get(ctx.input.content.fromDomainId);
    if (!src.serverId) return `The copy source ${src.domainNameUnicode} has no server`;
    const dir = await ctx.deps.contentFiles.dirInfo(src._id);
    if (!dir.domainDirExists) return `The copy source ${src.domainNameUnicode} has no directory on its server`;
    return null;
  } catch (err) {
    if (err instanceof NotFoundError) return 'The copy source domain is missing';
    if (err instanceof AppError) return `The copy source cannot be read: ${err.message}`;
    throw err;
  }
}

/** True when the domain's directory holds content (not only what a launch writes itself). */
async function hasContent(ctx: StageRunContext & { domainId: string }) {
  const dir = await domainDirOf(ctx.deps.files, ctx.domainId);
  if (!(await dir.fs.rootExists())) return false;
  const top = await dir.fs.list('');
  if (top.some((e) => e.name === PARSING_MARKER)) return false;
  return top.some((e) => !OWN_FILES.has(e.name) && !OWN_FILE.test(e.name));
}

/** The template's name becomes the new one in every text file of the new directory. */
async function replaceName(ctx: StageRunContext & { domainId: string }, from: string, to: string) {
  const dir = await domainDirOf(ctx.deps.files, ctx.domainId);
  let changed = 0;
  const paths: string[] = [];
  for await (const e of dir.fs.walk('', { signal: ctx.signal }))
    if (e.type === 'file' && TEXT_FILE.test(e.path) && e.size <= REPLACE_MAX_BYTES) paths.push(e.path);
  const pattern = new RegExp(from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  for (const p of paths) {
    ctx.signal.throwIfAborted();
    const text = (await dir.fs.readFile(p, REPLACE_MAX_BYTES)).toString('utf8');
    if (!pattern.test(text)) continue;
    pattern.lastIndex = 0;
    await dir.fs.writeAtomic(p, text.replace(pattern, to), { mkdirs: false });
    changed++;
  }
  return { scanned: paths.length, changed };
}

export const contentStage: Stage = {
  key: 'content',
  async plan(ctx) {
    const c = ctx.input.content;
    if (c.type === 'none') return { outcome: 'skip', detail: 'No content asked for' };
    if (!ctx.input.serverId) return { outcome: 'blocked', detail: 'Content needs a server to write to' };
    if (c.type === 'copy') {
      const problem = await copySourceProblem(ctx);
      if (problem) return { outcome: 'blocked', detail: problem };
      const src = await ctx.deps.domains.get(c.fromDomainId);
      return {
        outcome: 'run',
        detail: `Copy the files of ${src.domainNameUnicode} and replace ${src.domainName} with ${ctx.domainName} in them`,
      };
    }
    return { outcome: 'run', detail: `Parse ${c.url}${c.regionId ? " through the region's proxies" : ''}` };
  },
  async run(ctx) {
    const c = ctx.input.content;
    if (c.type === 'none') return skipped('No content asked for');
    if (!ctx.input.serverId) throw new Error('Content needs a server to write to');
    const links = [linkTo.files(ctx.domainId)];
    if (await hasContent(ctx)) return already('the domain directory has content', links);
    if (!(await ctx.deps.contentFiles.dirInfo(ctx.domainId)).domainDirExists)
      await ctx.deps.contentFiles.createDomainDir(ctx.domainId, ctx.actor);
    if (c.type === 'copy') {
      const src = await ctx.deps.domains.get(c.fromDomainId);
      const [from, to] = [await domainDirOf(ctx.deps.files, src._id), await domainDirOf(ctx.deps.files, ctx.domainId)];
      await requireDir(from);
      // The stage's line says how far the copy is at most once a second: a note is a write of the launch's row,
      // and one per file was most of a launch's database work.
      let noted = 0;
      const copied = await copyTree(from.fs, to.fs, {
        signal: ctx.signal,
        onProgress: async (p) => {
          if (Date.now() - noted < COPY_NOTE_EVERY_MS) return;
          noted = Date.now();
          await ctx.note(`Copying ${p.files} of ${p.filesTotal} files`);
        },
      });
      if (copied.failed.length)
        throw new Error(
          `${copied.failed.length} files could not be copied, first ${copied.failed[0]!.path}: ${copied.failed[0]!.error}`,
        );
      const r = await replaceName(ctx, src.domainName, ctx.domainName);
      return done(
        `Copied ${copied.files} files from ${src.domainNameUnicode}; replaced its name in ${r.changed} of ${r.scanned} text files`,
        links,
      );
    }
    const job = await ctx.deps.parsing.start(ctx.domainId, { confirmParserDisabled: true }, ctx.actor);
    const end = await ctx.wait(`the parsing job #${job.jobNo} to finish`, async () => {
      const s = await ctx.deps.jobState(job._id);
      return s && ['completed', 'completed_with_failures', 'failed', 'cancelled'].includes(s.state) ? s : null;
    });
    if (end.state === 'failed' || end.state === 'cancelled')
      throw new Error(`The parsing job #${job.jobNo} ${end.state}${end.error ? `: ${end.error}` : ''}`);
    return done(`Parsed ${c.url} (job #${job.jobNo}, ${end.state.replaceAll('_', ' ')})`, links);
  },
};

export const sitemapStage: Stage = {
  key: 'sitemap',
  async plan(ctx) {
    if (!ctx.input.serverId) return { outcome: 'skip', detail: 'No server chosen' };
    if (ctx.input.content.type === 'none') return { outcome: 'skip', detail: 'No content to list' };
    return { outcome: 'run', detail: "Write sitemap.xml from the site's HTML files" };
  },
  async run(ctx) {
    if (!ctx.input.serverId) return skipped('No server chosen');
    if (ctx.input.content.type === 'none') return skipped('No content to list');
    const r = await generateSitemap(ctx.deps.files, ctx.domainId, ctx.signal);
    return done(`Wrote ${r.files.join(', ')} (${r.urlCount} URLs)`, [linkTo.sitemap(ctx.domainName)]);
  },
};
