import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startIndexNowSim, type IndexNowSim } from '@fleetdesk/simulators/indexnow/index.ts';
import { generatedSite, startSiteServer, type SiteServer } from '@fleetdesk/simulators/site/index.ts';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import { directoryFileLookup } from '@fleetdesk/simulators/yandex-webmaster/index.ts';
import { indexNowKeys } from '../../db/schema/index.ts';
import { generateKeyPair } from '../../files/ssh/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

// IndexNow end to end: real job engine, the SSH test host as the sites' server, the IndexNow simulator reading
// the key files from the SSH host's directories (as the engines read https://<host>/<key>.txt).
let t: TestApp;
let cf: CloudflareSim;
let host: SshHost;
let sim: IndexNowSim;
let web: SiteServer;
let h: string;
let seq = 0;
const sshKey = generateKeyPair('ed25519');
const siteDir = (name: string) => path.join(host.rootDir, 'www', name);
const readSite = directoryFileLookup((name) => siteDir(name));

beforeAll(async () => {
  [host, cf, sim, web] = await Promise.all([
    startSshHost({ authorizedKeys: [sshKey.publicLine] }),
    startCloudflareSim(),
    startIndexNowSim(),
    // A site to parse: /, /p/1.html and /p/2.html with their CSS, scripts and images.
    startSiteServer({ routes: generatedSite(3, 2) }),
  ]);
  fs.mkdirSync(path.join(host.rootDir, 'www'));
  t = await createTestApp(
    { CLOUDFLARE_API_URL: cf.url, INDEXNOW_ENDPOINT: sim.url, INDEXNOW_TIMEOUT_SECONDS: '5' },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  h = await t.tokenFor(['cnv']);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([host?.close(), cf?.close(), sim?.close(), web?.close()]);
});
beforeEach(() => sim.setFileLookup(readSite));

type Method = 'GET' | 'POST' | 'PUT';
const call = (method: Method, url: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: h }, payload });
const create = async (resource: string, payload: object) => {
  const res = await call('POST', `/api/${resource}`, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { _id: string } & Record<string, unknown>;
};
const unique = (p: string) => `${p}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

let serverId: string | undefined;
/** A domain of a brand with IndexNow on or off, on the SSH host, with a small site. */
async function site(indexNow: boolean) {
  serverId ??= (await create('servers', { IPAddress: '127.0.0.1', sshPort: host.port, domainsPath: '/www' }))._id;
  expect((await call('POST', `/api/servers/${serverId}/rsa-key`, { rsaKey: sshKey.privateKey })).statusCode).toBe(200);
  const brand = await create('brands', { name: unique('Brand'), indexNow });
  expect(brand.indexNow).toBe(indexNow);
  const name = `${unique('site')}.com`;
  const d = await create('domains', { domainName: name, status: 'active', serverId, brandId: brand._id });
  const dir = siteDir(name);
  fs.mkdirSync(path.join(dir, 'blog'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), '<h1>home</h1>');
  fs.writeFileSync(path.join(dir, 'about.html'), '<h1>about</h1>');
  fs.writeFileSync(path.join(dir, 'blog', 'post.html'), '<h1>post</h1>');
  return { id: d._id, name, dir, brandId: brand._id };
}
const run = async (domainId: string, action: string, payload?: object) => {
  const res = await call('POST', `/api/domains/${domainId}/${action}`, payload);
  expect(res.statusCode, res.body).toBe(202);
  await t.c.jobEngine.waitFor(res.json().data._id, 30_000);
  return (await call('GET', `/api/jobs/${res.json().data._id}`)).json().data;
};
/** The key file in the site's root: its name is the key, and so is its content. */
const keyFileOf = (dir: string) => {
  const files = fs.readdirSync(dir).filter((f) => /^[0-9a-f]{32}\.txt$/.test(f));
  expect(files).toHaveLength(1);
  const key = files[0]!.slice(0, -4);
  expect(fs.readFileSync(path.join(dir, files[0]!), 'utf8')).toBe(key);
  return key;
};
const submissionsFor = (name: string) => sim.submissions.filter((s) => s.host === name);

describe('IndexNow after content jobs', () => {
  it('writes the key file and submits the pages of a new sitemap, then only what changed since', async () => {
    const d = await site(true);
    const job = await run(d.id, 'generate-sitemap');
    expect(job.state, job.error).toBe('completed');
    const key = keyFileOf(d.dir);
    const pages = [`https://${d.name}/`, `https://${d.name}/about.html`, `https://${d.name}/blog/post.html`];
    const [sent] = submissionsFor(d.name);
    expect(sent).toMatchObject({ method: 'POST', host: d.name, key, keyLocation: null, status: 200 });
    expect([...sent!.urls].sort()).toEqual([...pages, `https://${d.name}/sitemap.xml`].sort());
    expect(job.result).toMatchObject({
      urlCount: 3,
      indexNow: {
        ok: true,
        host: d.name,
        urls: 4,
        what: 'the pages changed and the sitemap',
        answers: [{ urls: 4, status: 200, meaning: 'received' }],
        message: 'IndexNow: 4 URLs submitted (200 received)',
      },
    });
    // The Jobs screen's sentence tells it beside the job's own.
    expect(job.summary).toBe('3 URLs in sitemap.xml · IndexNow: 4 URLs submitted (200 received)');
    // The key is public (it is on the site) but is not written to the logs.
    expect(t.logs.join('\n')).not.toContain(key);

    // Nothing changed: only the sitemap; one page changed: that page and the sitemap. The key stays the same.
    const again = await run(d.id, 'generate-sitemap');
    expect(submissionsFor(d.name).at(-1)!.urls).toEqual([`https://${d.name}/sitemap.xml`]);
    expect(again.result.indexNow.message).toBe('IndexNow: 1 URL submitted (200 received)');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(d.dir, 'about.html'), later, later);
    await run(d.id, 'generate-sitemap');
    expect(submissionsFor(d.name).at(-1)).toMatchObject({
      key,
      urls: [`https://${d.name}/about.html`, `https://${d.name}/sitemap.xml`],
    });
    expect(keyFileOf(d.dir)).toBe(key);
  }, 60_000);

  it.each([
    ['a copy of content files', 'copy-content-files', {}],
    [
      'a domain replacement copies the files',
      'replacement',
      { createCloudFlareZone: false, copyCloudFlareFirewallRules: false, copyFiles: true },
    ],
  ] as const)(
    "submits the target's root and sitemap after %s",
    async (_what, kind, params) => {
      const from = await site(false);
      const to = await site(true);
      const job = await run(from.id, kind, { targetDomainId: to.id, ...params });
      expect(job.state, job.error).toBe('completed');
      const key = keyFileOf(to.dir);
      expect(submissionsFor(to.name)).toMatchObject([
        { host: to.name, key, urls: [`https://${to.name}/`, `https://${to.name}/sitemap.xml`], status: 200 },
      ]);
      expect(job.result.indexNow).toMatchObject({ ok: true, what: "the site's root and sitemap" });
      // The source's brand has it off: nothing for it.
      expect(submissionsFor(from.name)).toEqual([]);
    },
    60_000,
  );

  it('submits the pages a parse wrote, and the sitemap', async () => {
    const d = await site(true);
    const parser = await call('PUT', `/api/domains/${d.id}`, {
      domainName: d.name,
      status: 'active',
      serverId,
      brandId: d.brandId,
      parserURL: `${web.url}/`,
      parserEnabled: true,
    });
    expect(parser.statusCode, parser.body).toBe(200);
    const job = await run(d.id, 'parsing', {});
    expect(job.state, job.error).toBe('completed');
    expect(job.result.pagesDone).toBe(3);
    const key = keyFileOf(d.dir);
    const [sent] = submissionsFor(d.name);
    expect(sent).toMatchObject({ key, status: 200 });
    expect([...sent!.urls].sort()).toEqual(
      [
        `https://${d.name}/`,
        `https://${d.name}/p/1.html`,
        `https://${d.name}/p/2.html`,
        `https://${d.name}/sitemap.xml`,
      ].sort(),
    );
    expect(job.result.indexNow).toMatchObject({ ok: true, what: 'the pages changed and the sitemap', urls: 4 });
  }, 60_000);

  it('sends nothing and writes no key file for a brand with IndexNow off', async () => {
    const d = await site(false);
    const before = sim.submissions.length;
    const job = await run(d.id, 'generate-sitemap');
    expect(job.state, job.error).toBe('completed');
    expect(job.result).toEqual({ files: ['sitemap.xml'], urlCount: 3, index: null });
    expect(sim.submissions.length).toBe(before);
    expect(fs.readdirSync(d.dir).filter((f) => f.endsWith('.txt'))).toEqual([]);
  }, 60_000);

  it('shows a refusal or a failure in the result while the job itself completes', async () => {
    const d = await site(true);
    // Nothing is taken, so every run offers the same 4 URLs (the 3 pages and the sitemap).
    const cases: [() => void, string, number][] = [
      // The engine reads another key at the site: 403.
      [() => sim.setFileLookup(() => 'not-the-right-key'), 'IndexNow: refused (403 key not valid)', 403],
      [() => sim.fail({ kind: '429' }), 'IndexNow: refused (429 too many requests)', 429],
      [() => sim.fail({ kind: '5xx' }), 'IndexNow: failed (answered 503: server error)', 503],
      [
        () => sim.fail({ kind: 'html' }),
        "IndexNow: failed (answered 200 with an HTML page, not the protocol's answer)",
        200,
      ],
    ];
    for (const [arrange, message, status] of cases) {
      sim.setFileLookup(readSite);
      arrange();
      const job = await run(d.id, 'generate-sitemap');
      expect(job.state, job.error).toBe('completed');
      expect(job.result.indexNow).toMatchObject({ ok: false, message, urls: 0 });
      expect(job.result.indexNow.answers).toMatchObject([{ urls: 4, status }]);
      expect(job.summary).toBe(`3 URLs in sitemap.xml · ${message}`);
    }
  }, 90_000);

  it('says so when the key file cannot be written, and sends nothing', async () => {
    const d = await site(true);
    // The domain's key is known, and its file's place on the site is taken by a directory: the write fails.
    const key = 'abcdef0123456789abcdef0123456789';
    await t.c.database.db.insert(indexNowKeys).values({ domainId: d.id, key });
    fs.mkdirSync(path.join(d.dir, `${key}.txt`));
    const before = sim.submissions.length;
    const job = await run(d.id, 'generate-sitemap');
    expect(job.state, job.error).toBe('completed');
    expect(job.result.indexNow).toMatchObject({ ok: false, urls: 0, answers: [] });
    expect(job.result.indexNow.message).toMatch(/^IndexNow: not submitted: the key file could not be written \(.+\)$/);
    expect(sim.submissions.length).toBe(before);
  }, 60_000);
});

describe("a brand's IndexNow setting", () => {
  it('is off by default, turned on and off, and refuses anything but true or false', async () => {
    const b = await create('brands', { name: unique('Plain') });
    expect(b.indexNow).toBe(false);
    const on = await call('PUT', `/api/brands/${b._id}`, { name: b.name, indexNow: true });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json().data.indexNow).toBe(true);
    // An edit that leaves it out keeps it.
    expect((await call('PUT', `/api/brands/${b._id}`, { name: `${b.name}x` })).json().data.indexNow).toBe(true);
    const bad = await call('PUT', `/api/brands/${b._id}`, { name: b.name, indexNow: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({ indexNow: 'IndexNow must be on or off' });
  });
});
