import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import { generateKeyPair } from '../../files/ssh/index.ts';
import { TRAVERSAL_CORPUS } from '../../files/content/traversal-corpus.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

const key = generateKeyPair('ed25519');
const SECRET = 'SECRET-OUTSIDE-THE-DOMAIN';
let t: TestApp;
let h: { authorization: string };
let host: SshHost;
let outside: string;
let domainId: string;
let dir: string;

beforeAll(async () => {
  host = await startSshHost({ authorizedKeys: [key.publicLine] });
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-outside-'));
  fs.writeFileSync(path.join(outside, 'secret.txt'), SECRET);
  // Small limits, so the 413s are cheap to reach: 10 KiB per file, 3 files per upload, 4 KiB in the editor.
  t = await createTestApp({
    CONTENT_UPLOAD_MAX_FILE_MB: String(10 / 1024),
    CONTENT_UPLOAD_MAX_FILES: '3',
    CONTENT_EDIT_MAX_KB: '4',
  });
});
afterAll(async () => {
  await t?.close();
  await host?.close();
  fs.rmSync(outside, { recursive: true, force: true });
});
beforeEach(async () => {
  await t.reset();
  fs.rmSync(path.join(host.rootDir, 'www'), { recursive: true, force: true });
  fs.mkdirSync(path.join(host.rootDir, 'www', 'other.example'), { recursive: true });
  fs.writeFileSync(path.join(host.rootDir, 'www', 'other.example', 'secret.txt'), SECRET);
  h = { authorization: await t.tokenFor(['cnv:domains', 'cnv:servers']) };
  const server = (
    await t.inject({
      method: 'POST',
      url: '/api/servers',
      headers: h,
      payload: { IPAddress: '127.0.0.1', sshPort: host.port, domainsPath: '/www' },
    })
  ).json().data;
  expect(
    (
      await t.inject({
        method: 'POST',
        url: `/api/servers/${server._id}/rsa-key`,
        headers: h,
        payload: { rsaKey: key.privateKey },
      })
    ).statusCode,
  ).toBe(200);
  const res = await t.inject({
    method: 'POST',
    url: '/api/domains',
    headers: h,
    payload: { domainName: 'пример.рф', status: 'active', serverId: server._id },
  });
  expect(res.statusCode, res.body).toBe(201);
  domainId = res.json().data._id;
  dir = path.join(host.rootDir, 'www', 'xn--e1afmkfd.xn--p1ai');
});

const base = () => `/api/domains/${domainId}`;
const q = (p: string) => `?path=${encodeURIComponent(p)}`;
const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object | string, headers = {}) =>
  t.inject({
    method,
    url: `${base()}${url}`,
    headers: {
      ...h,
      ...(typeof payload === 'string' ? { 'content-type': 'text/plain; charset=utf-8' } : {}),
      ...headers,
    },
    ...(payload !== undefined ? { payload } : {}),
  });

/** A multipart/form-data body: fields and files in the order given. */
function multipart(
  parts: ({ field: string; value: string } | { file: string; name: string; data: Buffer | string })[],
) {
  const boundary = `----fd${crypto.randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('field' in p) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${p.field}"\r\n\r\n${p.value}\r\n`));
    } else {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${p.file}"; filename="${p.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
      );
      chunks.push(Buffer.from(p.data), Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
const upload = (p: string, parts: Parameters<typeof multipart>[0]) => {
  const body = multipart(parts);
  return t.inject({
    method: 'POST',
    url: `${base()}/content-files/upload${q(p)}`,
    headers: { ...h, ...body.headers },
    payload: body.payload,
  });
};

async function createDir() {
  const res = await api('POST', '/content-files/create-domain-dir');
  expect(res.statusCode, res.body).toBe(200);
}

function makeSite() {
  fs.mkdirSync(path.join(dir, 'css'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'nested', 'deeper'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), '<h1>Hello</h1>');
  fs.writeFileSync(path.join(dir, 'css', 'site.css'), 'body{}');
  fs.symlinkSync(outside, path.join(dir, 'link-out'));
  fs.symlinkSync('../other.example', path.join(dir, 'link-up'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'link-file'));
  fs.symlinkSync(path.join(outside, 'missing'), path.join(dir, 'dangling'));
  fs.symlinkSync('../../../other.example', path.join(dir, 'nested', 'deeper', 'link-back'));
}

const audits = async () =>
  (
    await t.inject({
      method: 'GET',
      url: `/api/audit-log?entity=domains&entityId=${domainId}`,
      headers: { authorization: await t.tokenFor(['cnv']) },
    })
  )
    .json()
    .data?.items?.map((a: { action: string }) => a.action) ?? [];

describe('content files API', () => {
  it('reports the missing directory by its ASCII name, creates it once, and audits it', async () => {
    const res = await api('GET', '/content-files-dir');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ domainDirExists: false, domainDirName: 'xn--e1afmkfd.xn--p1ai' });
    expect((await api('GET', `/content-files${q('')}`)).statusCode).toBe(404);
    await createDir();
    expect(fs.statSync(dir).isDirectory()).toBe(true);
    expect((await api('GET', '/content-files-dir')).json().data.domainDirExists).toBe(true);
    expect((await api('POST', '/content-files/create-domain-dir')).statusCode).toBe(409);
    expect(await audits()).toContain('content_files_create_domain_dir');
  });

  it('lists directories first, then names in order, and browses into folders', async () => {
    await createDir();
    makeSite();
    fs.writeFileSync(path.join(dir, 'about.html'), 'a');
    const res = await api('GET', `/content-files${q('/')}`);
    expect(res.statusCode, res.body).toBe(200);
    const items = res.json().data.items as { name: string; type: string; displayName: string }[];
    expect(items.slice(0, 4).map((i) => i.type)).toEqual(['directory', 'directory', 'directory', 'directory']);
    expect(items.map((i) => i.name)).toEqual([
      'css',
      'link-out',
      'link-up',
      'nested',
      'about.html',
      'dangling',
      'index.html',
      'link-file',
    ]);
    expect(items[0]).toEqual({ name: 'css', type: 'directory', displayName: 'css' });
    expect((await api('GET', `/content-files${q('css')}`)).json().data.items).toEqual([
      { name: 'site.css', type: 'file', displayName: 'site.css' },
    ]);
    expect((await api('GET', `/content-files${q('index.html')}`)).statusCode).toBe(400);
    expect((await api('GET', `/content-files${q('nope')}`)).statusCode).toBe(404);
  });

  it('reads and saves a file atomically as plain text, within the editor limit', async () => {
    await createDir();
    makeSite();
    const got = await api('GET', `/content-files/file-content${q('index.html')}`);
    expect(got.json()).toEqual({ data: { fileContent: '<h1>Hello</h1>' } });
    const saved = await api('PUT', `/content-files/file-content${q('/index.html')}`, '<h1>Привет</h1>\n');
    expect(saved.statusCode, saved.body).toBe(200);
    expect(fs.readFileSync(path.join(dir, 'index.html'), 'utf8')).toBe('<h1>Привет</h1>\n');
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.fdtmp'))).toEqual([]);
    // Over the 4 KiB editor limit: 413, original kept.
    const big = await api('PUT', `/content-files/file-content${q('index.html')}`, 'x'.repeat(5000));
    expect(big.statusCode).toBe(413);
    expect(fs.readFileSync(path.join(dir, 'index.html'), 'utf8')).toBe('<h1>Привет</h1>\n');
    fs.writeFileSync(path.join(dir, 'huge.html'), 'y'.repeat(5000));
    expect((await api('GET', `/content-files/file-content${q('huge.html')}`)).statusCode).toBe(413);
    expect((await api('GET', `/content-files/file-content${q('css')}`)).statusCode).toBe(400);
    expect((await api('GET', `/content-files/file-content${q('missing.html')}`)).statusCode).toBe(404);
    expect((await api('GET', `/content-files/file-content`)).statusCode).toBe(400);
    expect((await api('PUT', `/content-files/file-content${q('css')}`, 'x')).statusCode).toBe(400);
    expect((await api('PUT', `/content-files/file-content${q('index.html')}`, { a: 1 })).statusCode).toBe(415);
    expect(await audits()).toContain('content_files_save');
  });

  it('renames, creates folders and removes files and whole trees', async () => {
    await createDir();
    makeSite();
    const renamed = await api('POST', `/content-files/rename${q('css/site.css')}`, { name: 'main.css' });
    expect(renamed.json()).toEqual({ data: { path: '/css/main.css' } });
    expect(fs.existsSync(path.join(dir, 'css', 'main.css'))).toBe(true);
    expect((await api('POST', `/content-files/rename${q('index.html')}`, { name: 'css' })).statusCode).toBe(409);
    const bad = await api('POST', `/content-files/rename${q('index.html')}`, { name: '../escape.html' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toHaveProperty('name');
    expect((await api('POST', `/content-files/rename${q('index.html')}`, {})).statusCode).toBe(400);
    const made = await api('POST', '/content-files/create-dir', { path: '/css', name: 'fonts' });
    expect(made.json()).toEqual({ data: { path: '/css/fonts' } });
    expect((await api('POST', '/content-files/create-dir', { path: '/css', name: 'fonts' })).statusCode).toBe(409);
    expect((await api('POST', '/content-files/create-dir', { path: '/', name: '' })).statusCode).toBe(400);
    fs.writeFileSync(path.join(dir, 'css', 'fonts', 'a.woff'), 'f');
    expect((await api('DELETE', '/content-files/remove', { path: '/css' })).statusCode).toBe(200);
    expect(fs.existsSync(path.join(dir, 'css'))).toBe(false);
    expect((await api('DELETE', '/content-files/remove', { path: 'index.html' })).statusCode).toBe(200);
    expect((await api('DELETE', '/content-files/remove', { path: '/' })).statusCode).toBe(400);
    expect((await api('DELETE', '/content-files/remove', {})).statusCode).toBe(400);
    expect((await api('DELETE', '/content-files/remove', { path: 'gone' })).statusCode).toBe(404);
    const log = await audits();
    for (const a of ['content_files_rename', 'content_files_create_dir', 'content_files_remove'])
      expect(log).toContain(a);
  });

  it('removes a symbolic link that leads outside through the route, never what it leads to', async () => {
    await createDir();
    makeSite();
    for (const link of ['link-out', 'link-up', 'link-file', 'dangling', 'nested/deeper/link-back']) {
      const res = await api('DELETE', '/content-files/remove', { path: link });
      expect(res.statusCode, `${link}: ${res.body}`).toBe(200);
      expect(res.json()).toEqual({ data: { path: `/${link}` } });
      expect(() => fs.lstatSync(path.join(dir, link))).toThrow();
    }
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    expect(fs.readdirSync(path.join(host.rootDir, 'www', 'other.example'))).toEqual(['secret.txt']);
    // A path through a link that leads out is still refused.
    fs.symlinkSync(outside, path.join(dir, 'link-out'));
    expect((await api('DELETE', '/content-files/remove', { path: 'link-out/secret.txt' })).statusCode).toBe(400);
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    const entries = (
      await t.inject({
        method: 'GET',
        url: `/api/audit-log?entity=domains&entityId=${domainId}`,
        headers: { authorization: await t.tokenFor(['cnv']) },
      })
    ).json().data.items as { action: string; details: { path: string; type: string } }[];
    const removed = entries.filter((e) => e.action === 'content_files_remove').map((e) => e.details);
    // A link is not kept for Restore (decision 078): the entry says why.
    expect(removed).toContainEqual({
      domainName: 'xn--e1afmkfd.xn--p1ai',
      path: '/link-out',
      type: 'link',
      snapshotSkipped: expect.any(String),
    });
  });

  it('uploads a folder keeping its structure, and downloads a file as an attachment', async () => {
    await createDir();
    const res = await upload('/', [
      { field: 'filesPathes', value: 'site/index.html' },
      { file: 'files', name: 'index.html', data: '<h1>site</h1>' },
      { field: 'filesPathes', value: 'site/css/style.css' },
      { file: 'files', name: 'style.css', data: 'h1{color:red}' },
      { field: 'filesPathes', value: 'site/img/logo.png' },
      { file: 'files', name: 'logo.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.items).toEqual([
      { path: '/site/index.html', size: 13 },
      { path: '/site/css/style.css', size: 13 },
      { path: '/site/img/logo.png', size: 7 },
    ]);
    expect(fs.readFileSync(path.join(dir, 'site', 'css', 'style.css'), 'utf8')).toBe('h1{color:red}');
    // Into a subfolder, with the file name when no path is given.
    expect((await upload('site/img', [{ file: 'files', name: 'icon.svg', data: '<svg/>' }])).statusCode).toBe(200);
    expect(fs.readFileSync(path.join(dir, 'site', 'img', 'icon.svg'), 'utf8')).toBe('<svg/>');
    const dl = await api('GET', `/content-files/download${q('site/img/logo.png')}`);
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['content-disposition']).toBe(`attachment; filename="logo.png"; filename*=UTF-8''logo.png`);
    expect(dl.rawPayload.equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]))).toBe(true);
    expect((await api('GET', `/content-files/download${q('site')}`)).statusCode).toBe(400);
    expect((await api('GET', `/content-files/download${q('nope.bin')}`)).statusCode).toBe(404);
    expect(await audits()).toContain('content_files_upload');
  });

  it('answers 413 past the file size and count limits, and 400 for paths that leave the folder', async () => {
    await createDir();
    const tooBig = await upload('/', [{ file: 'files', name: 'big.bin', data: Buffer.alloc(11 * 1024) }]);
    expect(tooBig.statusCode, tooBig.body).toBe(413);
    expect(tooBig.json().message).toMatch(/"big\.bin" is larger than the limit of 10240 bytes/);
    expect(fs.readdirSync(dir)).toEqual([]);
    const tooMany = await upload(
      '/',
      ['a', 'b', 'c', 'd'].map((n) => ({ file: 'files', name: `${n}.txt`, data: n })),
    );
    expect(tooMany.statusCode, tooMany.body).toBe(413);
    expect(tooMany.json().message).toBe('At most 3 files can be uploaded at once');
    const escape = await upload('/', [
      { field: 'filesPathes', value: '../other.example/pwned.html' },
      { file: 'files', name: 'pwned.html', data: 'x' },
    ]);
    expect(escape.statusCode).toBe(400);
    expect(fs.existsSync(path.join(host.rootDir, 'www', 'other.example', 'pwned.html'))).toBe(false);
    expect((await api('POST', '/content-files/upload', 'not multipart')).statusCode).toBe(415);
  });

  it(`lets none of the ${TRAVERSAL_CORPUS.length} traversal attacks out through any call`, async () => {
    await createDir();
    makeSite();
    const problems: string[] = [];
    for (const attack of TRAVERSAL_CORPUS) {
      // The file layer's test runs every operation on the corpus; here each call's route is covered by a read
      // and a write.
      const calls = [
        api('GET', `/content-files/file-content${q(attack)}`),
        api('PUT', `/content-files/file-content${q(attack)}`, 'pwned'),
      ];
      for (const res of await Promise.all(calls)) {
        // A 2xx is only possible for strings that are harmless names inside (e.g. a file literally named
        // "..%2f..%2fx"); what matters is that nothing outside was read or written, checked below.
        if (res.statusCode >= 500) problems.push(`${JSON.stringify(attack)} → ${res.statusCode}`);
        if (res.body.includes(SECRET)) problems.push(`${JSON.stringify(attack)} read a secret`);
      }
    }
    for (const attack of ['../other.example/secret.txt', 'link-out/secret.txt', 'link-up', 'nested/deeper/link-back']) {
      const calls = [
        api('GET', `/content-files${q(attack)}`),
        api('GET', `/content-files/download${q(attack)}`),
        api('POST', `/content-files/rename${q(attack)}`, { name: 'renamed' }),
        api('POST', '/content-files/create-dir', { path: attack, name: 'pwned-dir' }),
        // A bare link (link-up, …/link-back) is removed itself: the test above.
        ...(attack.includes('link-') && !attack.includes('/secret')
          ? []
          : [api('DELETE', '/content-files/remove', { path: attack })]),
        upload(attack, [{ file: 'files', name: 'pwned.html', data: 'x' }]),
      ];
      for (const res of await Promise.all(calls)) {
        if (res.statusCode !== 400) problems.push(`${JSON.stringify(attack)} → ${res.statusCode}`);
      }
    }
    expect(problems).toEqual([]);
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    expect(fs.readdirSync(path.join(host.rootDir, 'www', 'other.example'))).toEqual(['secret.txt']);
    expect(fs.readdirSync(path.join(host.rootDir, 'www')).sort()).toEqual(['other.example', 'xn--e1afmkfd.xn--p1ai']);
    expect(fs.readdirSync(host.rootDir).sort()).toEqual(['www']);
  }, 180_000);

  it('needs the domains rule, a server, and a known domain', async () => {
    const other = { authorization: await t.tokenFor(['cnv:servers']) };
    expect((await t.inject({ method: 'GET', url: `${base()}/content-files-dir`, headers: other })).statusCode).toBe(
      403,
    );
    expect((await t.inject({ method: 'GET', url: `${base()}/content-files-dir` })).statusCode).toBe(401);
    const lone = (
      await t.inject({
        method: 'POST',
        url: '/api/domains',
        headers: h,
        payload: { domainName: 'lone.example', status: 'active' },
      })
    ).json().data;
    const res = await t.inject({ method: 'GET', url: `/api/domains/${lone._id}/content-files-dir`, headers: h });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/no server/);
    const missing = '00000000-0000-4000-8000-000000000000';
    expect(
      (await t.inject({ method: 'GET', url: `/api/domains/${missing}/content-files-dir`, headers: h })).statusCode,
    ).toBe(404);
    expect(
      (await t.inject({ method: 'GET', url: `/api/domains/not-an-id/content-files-dir`, headers: h })).statusCode,
    ).toBe(400);
  });
});
