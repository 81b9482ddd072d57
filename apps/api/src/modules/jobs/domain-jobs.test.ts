import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import { generateKeyPair } from '../../files/ssh/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

// The domain jobs end to end: real engine, two SSH test hosts (two servers), the Cloudflare simulator.
let t: TestApp;
let sim: CloudflareSim;
let hostA: SshHost;
let hostB: SshHost;
let h: string;
let seq = 0;
const key = generateKeyPair('ed25519');
const BIG = crypto.randomBytes(1024 * 1024 + 17);

beforeAll(async () => {
  [hostA, hostB, sim] = await Promise.all([
    startSshHost({ authorizedKeys: [key.publicLine] }),
    startSshHost({ authorizedKeys: [key.publicLine] }),
    startCloudflareSim(),
  ]);
  for (const host of [hostA, hostB]) fs.mkdirSync(path.join(host.rootDir, 'www'));
  t = await createTestApp(
    { CLOUDFLARE_API_URL: sim.url, CLOUDFLARE_TIMEOUT_SECONDS: '5' },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  h = await t.tokenFor(['cnv']);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([hostA?.close(), hostB?.close(), sim?.close()]);
});

type Method = 'GET' | 'POST' | 'PUT';
const call = (method: Method, url: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: h }, payload });
const create = async (resource: string, payload: object) => {
  const res = await call('POST', `/api/${resource}`, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { _id: string } & Record<string, unknown>;
};
const unique = (prefix: string) => `${prefix}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

async function serverOn(host: SshHost) {
  const s = await create('servers', { IPAddress: '127.0.0.1', sshPort: host.port, domainsPath: '/www' });
  expect((await call('POST', `/api/servers/${s._id}/rsa-key`, { rsaKey: key.privateKey })).statusCode).toBe(200);
  return s._id;
}
async function domainOn(serverId: string | null, extra: object = {}) {
  const name = `${unique('site')}.com`;
  const d = await create('domains', { domainName: name, status: 'active', serverId, ...extra });
  return { id: d._id, name };
}
/** A small site: three HTML pages (one with a space and a non-ASCII name), CSS and a 1 MB binary. */
function seedSite(host: SshHost, name: string) {
  const dir = path.join(host.rootDir, 'www', name);
  fs.mkdirSync(path.join(dir, 'blog'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'css'));
  fs.mkdirSync(path.join(dir, 'img'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<h1>home</h1>');
  fs.writeFileSync(path.join(dir, 'about us.html'), '<h1>about</h1>');
  fs.writeFileSync(path.join(dir, 'blog', 'пост.html'), '<h1>post</h1>');
  fs.writeFileSync(path.join(dir, 'css', 'site.css'), 'body{}');
  fs.writeFileSync(path.join(dir, 'img', 'big.bin'), BIG);
  return dir;
}
const start = async (domainId: string, action: string, payload?: object) => {
  const res = await call('POST', `/api/domains/${domainId}/${action}`, payload);
  return res;
};
const finish = async (jobId: string) => {
  await t.c.jobEngine.waitFor(jobId, 30_000);
  return (await call('GET', `/api/jobs/${jobId}`)).json().data;
};

describe('generate sitemap', () => {
  it('walks the HTML files and writes sitemap.xml with https URLs and last-modified times', async () => {
    const server = await serverOn(hostA);
    const d = await domainOn(server);
    const dir = seedSite(hostA, d.name);
    const res = await start(d.id, 'generate-sitemap');
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toMatchObject({ kind: 'domains.generate-sitemap', domainName: d.name, state: 'queued' });
    const job = await finish(res.json().data._id);
    expect(job.state, job.error).toBe('completed');
    expect(job.result).toEqual({ files: ['sitemap.xml'], urlCount: 3, index: null });
    const xml = new XMLParser({ isArray: (n) => n === 'url' }).parse(fs.readFileSync(path.join(dir, 'sitemap.xml')));
    expect(xml.urlset.url.map((u: { loc: string }) => u.loc).sort()).toEqual(
      [
        `https://${d.name}/`,
        `https://${d.name}/about%20us.html`,
        `https://${d.name}/blog/%D0%BF%D0%BE%D1%81%D1%82.html`,
      ].sort(),
    );
    expect(xml.urlset.url[0].lastmod).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('skips symbolic links that lead outside, with a note in the result, for the sitemap and the copy (issue 26)', async () => {
    const [a, b] = [await serverOn(hostA), await serverOn(hostB)];
    const d = await domainOn(a);
    const dst = await domainOn(b);
    const dir = seedSite(hostA, d.name);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.html'), '<h1>not this site</h1>');
    fs.symlinkSync(outside, path.join(dir, 'link-out'));
    fs.symlinkSync(path.join(outside, 'secret.html'), path.join(dir, 'blog', 'link-file.html'));
    try {
      const sitemap = await finish((await start(d.id, 'generate-sitemap')).json().data._id);
      expect(sitemap.state, sitemap.error).toBe('completed');
      expect(sitemap.result).toMatchObject({ urlCount: 3 });
      expect(sitemap.result.skippedLinks).toEqual({
        count: 2,
        paths: ['link-out', 'blog/link-file.html'],
        note: '2 symbolic links were skipped: links are never followed (they may lead outside the directory)',
      });
      const copy = await finish((await start(d.id, 'copy-content-files', { targetDomainId: dst.id })).json().data._id);
      expect(copy.state, copy.error).toBe('completed');
      expect(copy.result).toMatchObject({ files: 6, failed: [], skippedLinks: { count: 2 } });
      const out = path.join(hostB.rootDir, 'www', dst.name);
      expect(fs.existsSync(path.join(out, 'link-out'))).toBe(false);
      expect(fs.existsSync(path.join(out, 'blog', 'link-file.html'))).toBe(false);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  }, 60_000);

  it('answers 409 naming the job when one is already queued or running for the domain', async () => {
    const server = await serverOn(hostA);
    const d = await domainOn(server);
    seedSite(hostA, d.name);
    const first = (await start(d.id, 'generate-sitemap')).json().data;
    const second = await start(d.id, 'generate-sitemap');
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toMatch(
      new RegExp(`^Generate Sitemap is already (queued|running) for this domain \\(job #${first.jobNo}\\)$`),
    );
    // The other party as a field a client can follow, not only in the words.
    expect(second.json()).toMatchObject({ code: 'job_running', data: { jobId: first._id, jobNo: first.jobNo } });
    await finish(first._id);
  });

  it('fails with a clear error when the domain directory is missing', async () => {
    const d = await domainOn(await serverOn(hostA));
    const job = await finish((await start(d.id, 'generate-sitemap')).json().data._id);
    expect(job.state).toBe('failed');
    expect(job.error).toBe(`The directory of ${d.name} does not exist on its server (/www/${d.name})`);
  }, 60_000);

  it('fails when no HTML file is there to list, naming the links it skipped where every page was one', async () => {
    const d = await domainOn(await serverOn(hostA));
    const dir = path.join(hostA.rootDir, 'www', d.name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'site.css'), 'body{}');
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-outside-'));
    fs.writeFileSync(path.join(outside, 'page.html'), '<h1>elsewhere</h1>');
    fs.symlinkSync(path.join(outside, 'page.html'), path.join(dir, 'index.html'));
    try {
      const job = await finish((await start(d.id, 'generate-sitemap')).json().data._id);
      expect(job.state, JSON.stringify(job)).toBe('failed');
      expect(job.error).toBe(
        'The domain directory has no HTML files, so there is nothing to list in a sitemap; 1 symbolic link was ' +
          'skipped: links are never followed (they may lead outside the directory): index.html',
      );
      expect(fs.existsSync(path.join(dir, 'sitemap.xml'))).toBe(false);
      // Without any link: the plain reason.
      fs.rmSync(path.join(dir, 'index.html'));
      const again = await finish((await start(d.id, 'generate-sitemap')).json().data._id);
      expect(again).toMatchObject({
        state: 'failed',
        error: 'The domain directory has no HTML files, so there is nothing to list in a sitemap',
      });
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  }, 60_000);

  it('answers 404 for an unknown domain', async () => {
    const res = await start('00000000-0000-4000-8000-000000000000', 'generate-sitemap');
    expect(res.statusCode).toBe(404);
  });
});

describe('copy content files', () => {
  it('copies the whole tree to a domain on another server, and reports a failing file by name', async () => {
    const [a, b] = [await serverOn(hostA), await serverOn(hostB)];
    const src = await domainOn(a);
    const dst = await domainOn(b);
    seedSite(hostA, src.name);
    // A directory where the file should go: writing that file fails on every attempt.
    fs.mkdirSync(path.join(hostB.rootDir, 'www', dst.name, 'css', 'site.css'), { recursive: true });
    const res = await start(src.id, 'copy-content-files', { targetDomainId: dst.id });
    expect(res.statusCode, res.body).toBe(202);
    const job = await finish(res.json().data._id);
    // Some files failed: never a plain "completed" (the one rule of outcomes.ts), and the sentence names them.
    expect(job.state, job.error).toBe('completed_with_failures');
    expect(job.stateText).toBe('Completed with failures: 1 of 5 failed');
    expect(job.summary).toMatch(/^4 files and 3 directories copied \(1\.0 MB\), 1 file failed$/);
    expect(job.payload.targetDomainName).toBe(dst.name);
    expect(job.result).toMatchObject({ files: 4, directories: 3, bytes: BIG.length + 13 + 14 + 13 });
    expect(job.result.failed).toEqual([{ path: 'css/site.css', error: expect.any(String) }]);
    expect(job.progress).toMatchObject({ done: 5, total: 5, unit: 'files', bytesTotal: BIG.length + 46 });
    const out = path.join(hostB.rootDir, 'www', dst.name);
    expect(fs.readFileSync(path.join(out, 'img', 'big.bin')).equals(BIG)).toBe(true);
    expect(fs.readFileSync(path.join(out, 'blog', 'пост.html'), 'utf8')).toBe('<h1>post</h1>');
  }, 60_000);

  it('fails, with the first file\'s reason, when every file failed (never "completed")', async () => {
    const [a, b] = [await serverOn(hostA), await serverOn(hostB)];
    const src = await domainOn(a);
    const dst = await domainOn(b);
    const from = path.join(hostA.rootDir, 'www', src.name);
    fs.mkdirSync(from, { recursive: true });
    fs.writeFileSync(path.join(from, 'index.html'), '<h1>home</h1>');
    fs.writeFileSync(path.join(from, 'site.css'), 'body{}');
    // A directory where each file should go: writing every file fails.
    for (const f of ['index.html', 'site.css'])
      fs.mkdirSync(path.join(hostB.rootDir, 'www', dst.name, f), { recursive: true });
    const job = await finish((await start(src.id, 'copy-content-files', { targetDomainId: dst.id })).json().data._id);
    expect(job.state, JSON.stringify(job)).toBe('failed');
    expect(job.error).toMatch(/^No file copied: every file failed; the first, index\.html: ./);
    expect(job.stateText).toBe('Failed');
    expect(job.summary).toBe(job.error);
  }, 60_000);

  it('refuses a missing, unknown or identical target with field errors', async () => {
    const d = await domainOn(null);
    const missing = await start(d.id, 'copy-content-files', {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().fields).toEqual({ targetDomainId: 'Choose a target domain' });
    const same = await start(d.id, 'copy-content-files', { targetDomainId: d.id });
    expect(same.statusCode).toBe(400);
    expect(same.json().fields).toEqual({ targetDomainId: 'The target domain must be another domain' });
    const unknown = await start(d.id, 'copy-content-files', { targetDomainId: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().fields).toEqual({ targetDomainId: 'The target domain does not exist' });
    const bad = await start(d.id, 'copy-content-files', { targetDomainId: 'nope' });
    expect(bad.statusCode).toBe(400);
  });
});

describe('domain replacement', () => {
  it('stops at a failed step with its reason, and resumes from it without redoing the done steps', async () => {
    const email = `${unique('ops')}@example.com`;
    const creds = { email, token: `${unique('secret')}-0123456789abcdef` };
    sim.addAccount(creds);
    const cloud = await create('clouds', creds);
    const rule = await create('firewall-rules', {
      name: unique('rule'),
      action: 'block',
      expression: '(http.user_agent contains "curl")',
      defaultPriority: 5,
    });
    const a = await serverOn(hostA);
    const src = await domainOn(a, { cloudId: cloud._id });
    seedSite(hostA, src.name);
    expect((await call('POST', `/api/domains/${src.id}/cloud-flare/create-zone`)).statusCode).toBe(200);
    const waf = await call('POST', `/api/domains/${src.id}/firewall-rules`, {
      cloudFirewallRules: [{ ruleId: rule._id, priority: 7 }],
    });
    expect(waf.statusCode, waf.body).toBe(200);
    // The target has no server yet: the files step fails.
    const dst = await domainOn(null);

    const res = await start(src.id, 'replacement', {
      targetDomainId: dst.id,
      createCloudFlareZone: true,
      copyCloudFlareFirewallRules: 'true',
      copyFiles: true,
    });
    expect(res.statusCode, res.body).toBe(202);
    const failed = await finish(res.json().data._id);
    expect(failed.state).toBe('failed');
    expect(failed.error).toBe(`${dst.name} has no server`);
    expect(failed.steps.map((s: { key: string; status: string }) => [s.key, s.status])).toEqual([
      ['zone', 'done'],
      ['waf', 'done'],
      ['files', 'failed'],
    ]);
    expect(failed.steps[2].message).toBe(`${dst.name} has no server`);
    expect(failed.resumable).toBe(true);
    const target = (await call('GET', `/api/domains/${dst.id}`)).json().data;
    expect(target.cloudId).toBe(cloud._id);
    expect(target.cloudZoneId).toBeTruthy();
    const rules = (await call('GET', `/api/domains/${dst.id}/firewall-rules`)).json().data.items;
    expect(rules.map((r: { ruleId: string; priority: number }) => [r.ruleId, r.priority])).toEqual([[rule._id, 7]]);
    const zonesBefore = [...sim.state.zones.values()].filter((z) => z.name === dst.name).length;

    // Fix the cause, then resume: only the files step runs.
    const b = await serverOn(hostB);
    expect((await call('PUT', `/api/domains/${dst.id}`, { serverId: b })).statusCode).toBe(200);
    const resumed = await call('POST', `/api/jobs/${failed._id}/resume`);
    expect(resumed.statusCode, resumed.body).toBe(202);
    const done = await finish(failed._id);
    expect(done.state, done.error).toBe('completed');
    expect(done.steps.map((s: { status: string }) => s.status)).toEqual(['done', 'done', 'done']);
    expect(done.result.files).toMatchObject({ files: 5, directories: 3, failed: [] });
    expect([...sim.state.zones.values()].filter((z) => z.name === dst.name).length).toBe(zonesBefore);
    const audit = (await call('GET', `/api/audit-log?entity=domains&entityId=${dst.id}`)).json().data.items;
    expect(audit.filter((e: { action: string }) => e.action === 'cloudflare_create_zone')).toHaveLength(1);
    expect(fs.existsSync(path.join(hostB.rootDir, 'www', dst.name, 'img', 'big.bin'))).toBe(true);
  }, 90_000);
});
