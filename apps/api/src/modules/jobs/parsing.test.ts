import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForwardProxy, type ForwardProxy } from '@fleetdesk/simulators/proxy/index.ts';
import { generatedSite, startSiteServer, type SiteServer } from '@fleetdesk/simulators/site/index.ts';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import type { ParsingProgress } from '@fleetdesk/contract';
import { generateKeyPair } from '../../files/ssh/index.ts';
import { PARSING_MARKER } from '../../jobs/kinds/parsing.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { PARSING_TEXT } from './parsing.service.ts';

// Parsing end to end: the API call, the real job engine, a local site, the test proxies and the SSH test host.
let t: TestApp;
let host: SshHost;
let site: SiteServer;
let slowSite: SiteServer;
let httpProxy: ForwardProxy;
let h: string;
let serverId: string;
let seq = 0;
const key = generateKeyPair('ed25519');

beforeAll(async () => {
  [host, site, slowSite, httpProxy] = await Promise.all([
    startSshHost({ authorizedKeys: [key.publicLine] }),
    startSiteServer({ routes: generatedSite(12, 3) }),
    // 20 pages, 200 files, each answer 25 ms late: long enough to cancel in the middle.
    startSiteServer({ routes: generatedSite(20, 3), delayMs: 25 }),
    startForwardProxy({ kind: 'http', username: 'pu', password: 'pp' }),
  ]);
  fs.mkdirSync(path.join(host.rootDir, 'www'));
  t = await createTestApp(
    { PARSER_CONCURRENCY: '4', PARSER_TIMEOUT_SECONDS: '3', PARSER_RETRIES: '1' },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  h = await t.tokenFor(['cnv']);
  const s = await create('servers', { IPAddress: '127.0.0.1', sshPort: host.port, domainsPath: '/www' });
  expect((await call('POST', `/api/servers/${s._id}/rsa-key`, { rsaKey: key.privateKey })).statusCode).toBe(200);
  serverId = s._id;
}, 60_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([host?.close(), site?.close(), slowSite?.close(), httpProxy?.close()]);
});

type Method = 'GET' | 'POST' | 'PUT';
function call(method: Method, url: string, payload?: object | string) {
  return t.inject({ method, url, headers: { authorization: h }, payload });
}
async function create(resource: string, payload: object) {
  const res = await call('POST', `/api/${resource}`, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { _id: string } & Record<string, unknown>;
}
async function domain(extra: object = {}, opts: { dir?: boolean } = {}) {
  const name = `parse-${++seq}-${Math.random().toString(36).slice(2, 7)}.com`;
  const d = await create('domains', { domainName: name, status: 'active', serverId, ...extra });
  if (opts.dir !== false) fs.mkdirSync(path.join(host.rootDir, 'www', name));
  return { id: d._id, name, dir: path.join(host.rootDir, 'www', name) };
}
const progressOf = async (id: string) =>
  (await call('GET', `/api/domains/${id}`)).json().data as {
    parsingProgress: ParsingProgress | null;
    parsingStartDate: string | null;
    parsingEndDate: string | null;
  };
const finish = async (jobId: string) => {
  await t.c.jobEngine.waitFor(jobId, 60_000);
  return (await call('GET', `/api/jobs/${jobId}`)).json().data;
};
/** Every file under a directory, relative, with its bytes. */
function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), fs.readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

describe('POST /api/domains/{id}/parsing', () => {
  it('asks to confirm past parser_disabled, then mirrors the site into the domain directory', async () => {
    const d = await domain({ parserEnabled: false, parserURL: `${site.url}/` });
    const refused = await call('POST', `/api/domains/${d.id}/parsing`, {});
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'parser_disabled',
      reason: 'parser_disabled',
      message: PARSING_TEXT.parserDisabled,
    });
    // No body at all is the same as an empty one.
    expect(
      (await t.inject({ method: 'POST', url: `/api/domains/${d.id}/parsing`, headers: { authorization: h } }))
        .statusCode,
    ).toBe(400);

    const res = await call('POST', `/api/domains/${d.id}/parsing`, { confirmParserDisabled: true });
    expect(res.statusCode, res.body).toBe(202);
    const job = await finish(res.json().data._id);
    expect(job.state, JSON.stringify(job)).toBe('completed');
    const files = tree(d.dir);
    // 12 pages × (1 page + 2 CSS + 2 JS + 5 PNG); the marker is gone.
    expect(files.size).toBe(120);
    expect(files.has(PARSING_MARKER)).toBe(false);
    expect(files.get('index.html')!.toString()).toContain('href="css/0-a.css"');
    expect(files.get('p/1.html')!.toString()).toContain('src="../img/1-0.png"');
    const after = await progressOf(d.id);
    expect(after.parsingProgress).toMatchObject({
      state: 'completed',
      pagesDone: 12,
      assets: 108,
      errors: 0,
      route: 'directly (no parser proxy region is set)',
    });
    expect(after.parsingStartDate).not.toBeNull();
    expect(new Date(after.parsingEndDate!).getTime()).toBeGreaterThanOrEqual(
      new Date(after.parsingStartDate!).getTime(),
    );
  });

  it('a parse that saved nothing fails with the fetch\'s reason, never "completed"', async () => {
    const d = await domain({ parserURL: 'http://127.0.0.1:1/', parserEnabled: true });
    const res = await call('POST', `/api/domains/${d.id}/parsing`, {});
    expect(res.statusCode, res.body).toBe(202);
    const job = await finish(res.json().data._id);
    expect(job.state, JSON.stringify(job)).toBe('failed');
    expect(job.error).toMatch(/^Nothing saved: 1 URL failed; http:\/\/127\.0\.0\.1:1\/: ./);
    // The parsing page lists the URL that failed, as it does for a parse that saved some.
    expect((await progressOf(d.id)).parsingProgress).toMatchObject({
      state: 'failed',
      errors: 1,
      failed: [{ url: 'http://127.0.0.1:1/', reason: expect.any(String) }],
    });
  });

  it('a parse where some URLs failed ends "Completed with failures", naming them; the page lists them', async () => {
    const broken = await startSiteServer({
      routes: {
        '/': { body: '<html><head><link rel="stylesheet" href="/a.css"></head><a href="/gone.html">x</a></html>' },
        '/a.css': { body: 'body{}' },
      },
    });
    try {
      const d = await domain({ parserURL: `${broken.url}/`, parserEnabled: true });
      const job = await finish((await call('POST', `/api/domains/${d.id}/parsing`, {})).json().data._id);
      expect(job.state, JSON.stringify(job)).toBe('completed_with_failures');
      expect(job.stateText).toBe('Completed with failures: 1 of 3 failed');
      expect(job.summary).toMatch(/^1 page and 1 requisite saved \(.+\), 1 URL failed$/);
      expect(job.result.failed).toEqual([{ url: `${broken.url}/gone.html`, reason: 'HTTP 404' }]);
      expect((await progressOf(d.id)).parsingProgress).toMatchObject({ state: 'completed', errors: 1 });
    } finally {
      await broken.close();
    }
  });

  it('says which of parser URL, server and directory is missing, and refuses bad input', async () => {
    const noUrl = await domain({ parserEnabled: true });
    let res = await call('POST', `/api/domains/${noUrl.id}/parsing`, {});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'no_parser_url', message: PARSING_TEXT.noParserUrl });

    const noServer = await domain({ parserEnabled: true, parserURL: `${site.url}/`, serverId: null }, { dir: false });
    res = await call('POST', `/api/domains/${noServer.id}/parsing`, {});
    expect(res.json()).toMatchObject({ code: 'no_server', message: PARSING_TEXT.noServer });

    const noDir = await domain({ parserEnabled: true, parserURL: `${site.url}/` }, { dir: false });
    res = await call('POST', `/api/domains/${noDir.id}/parsing`, {});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'domain_dir_missing', message: PARSING_TEXT.noDomainDir });

    res = await call('POST', `/api/domains/${noDir.id}/parsing`, { confirmParserDisabled: 'perhaps' });
    expect(res.statusCode).toBe(400);
    res = await call('POST', `/api/domains/00000000-0000-4000-8000-000000000000/parsing`, {});
    expect(res.statusCode).toBe(404);
  });

  it('fetches through a healthy proxy of the region, past a dead one, and refuses a region with none usable', async () => {
    const region = await create('regions', { name: `parse-region-${++seq}` });
    const empty = await domain({ parserEnabled: true, parserURL: `${site.url}/`, parserProxyRegionId: region._id });
    let res = await call('POST', `/api/domains/${empty.id}/parsing`, {});
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('no_usable_proxy');

    const s = net.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const deadPort = (s.address() as net.AddressInfo).port;
    await new Promise((r) => s.close(r));
    const base = { IPAddress: '127.0.0.1', proxyType: 'http', regionId: region._id };
    // Checked and failing: never tried. Dead since its last good check (so tried first): dropped. Good: used.
    const failing = await create('proxies', { ...base, httpPort: deadPort });
    await t.c.repos.proxies.update(failing._id, { checkStatus: 'error', checkError: 'down' });
    const dead = await create('proxies', { ...base, httpPort: deadPort });
    await t.c.repos.proxies.update(dead._id, { checkStatus: 'ok', checkLatencyMs: 1 });
    await create('proxies', { ...base, httpPort: httpProxy.port, username: 'pu', password: 'pp' });
    const all = await t.c.services.proxies.endpointsInRegion(region._id);
    expect(all.map((e) => e.httpPort)).toEqual([deadPort, httpProxy.port]);

    const before = httpProxy.requests;
    res = await call('POST', `/api/domains/${empty.id}/parsing`, {});
    expect(res.statusCode, res.body).toBe(202);
    const job = await finish(res.json().data._id);
    expect(job.state, JSON.stringify(job)).toBe('completed');
    expect(httpProxy.requests).toBeGreaterThan(before);
    const p = (await progressOf(empty.id)).parsingProgress!;
    expect(p.route).toBe(`through 2 proxies of ${region.name}`);
    expect(p.errors).toBe(0);
    expect(p.events?.join('\n')).toContain(`Proxy 127.0.0.1:${deadPort}: connection failed; moved to the next proxy`);
    expect(tree(empty.dir).size).toBe(120);
  });

  it('resumes a job stopped in the middle and ends with the same files, not fetching kept ones again', async () => {
    const reference = await domain({ parserEnabled: true, parserURL: `${slowSite.url}/` });
    let res = await call('POST', `/api/domains/${reference.id}/parsing`, {});
    expect((await finish(res.json().data._id)).state).toBe('completed');
    const expected = tree(reference.dir);
    expect(expected.size).toBe(200);
    slowSite.hits.clear();

    const d = await domain({ parserEnabled: true, parserURL: `${slowSite.url}/` });
    res = await call('POST', `/api/domains/${d.id}/parsing`, {});
    const jobId = res.json().data._id as string;
    // Stop it once a good part is written.
    for (let i = 0; i < 200; i++) {
      const p = (await progressOf(d.id)).parsingProgress;
      if (p && p.jobId === jobId && p.assets >= 40) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await call('POST', `/api/jobs/${jobId}/cancel`)).statusCode).toBe(200);
    expect((await finish(jobId)).state).toBe('cancelled');
    // The job row says cancelled as soon as the engine stops it; the handler writes the domain's progress as it unwinds.
    let stoppedState: unknown;
    for (let i = 0; i < 100; i++) {
      stoppedState = (await progressOf(d.id)).parsingProgress?.state;
      if (stoppedState === 'cancelled') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(stoppedState).toBe('cancelled');
    const partial = tree(d.dir);
    expect(partial.size).toBeGreaterThan(20);
    expect(partial.size).toBeLessThan(200);

    const hitsBefore = new Map(slowSite.hits);
    expect((await call('POST', `/api/jobs/${jobId}/resume`)).statusCode).toBe(202);
    const job = await finish(jobId);
    expect(job.state, JSON.stringify(job)).toBe('completed');
    const final = tree(d.dir);
    expect([...final.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [f, body] of expected) expect(final.get(f)?.equals(body), f).toBe(true);
    // Images written before the stop were not fetched again.
    const keptImages = [...partial.keys()].filter((f) => f.endsWith('.png'));
    expect(keptImages.length).toBeGreaterThan(0);
    for (const f of keptImages) expect(slowSite.hits.get(`/${f}`), f).toBe(hitsBefore.get(`/${f}`));
    const p = (await progressOf(d.id)).parsingProgress!;
    expect(p.state).toBe('completed');
    expect(p.skipped).toBeGreaterThanOrEqual(keptImages.length);
  }, 60_000);
});
