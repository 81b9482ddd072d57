import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.ts';
import { generateKeyPair } from '../ssh/keys.ts';
import { createSshPool, type SshPool } from '../ssh/ssh-pool.ts';
import type { SshTarget } from '../ssh/types.ts';
import { openContentFs, type ContentFs } from './content-fs.ts';
import { domainDirName, resolveInside } from './paths.ts';
import { TRAVERSAL_CORPUS } from './traversal-corpus.ts';

const key = generateKeyPair('ed25519');
const SECRET = 'TOP-SECRET-OUTSIDE';
let host: SshHost;
let pool: SshPool;
let outside: string;
let domainDir: string;
let files: ContentFs;

const target = (): SshTarget => ({
  serverId: 'srv-content',
  host: '127.0.0.1',
  port: host.port,
  username: 'root',
  privateKey: key.privateKey,
  knownHostFingerprint: null,
});

/** Every file under dir with its content, to prove nothing outside the domain changed. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name);
    out[path.relative(dir, p)] = e.isFile() ? await fs.readFile(p, 'utf8') : e.isDirectory() ? '<dir>' : '<other>';
  }
  return out;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

beforeAll(async () => {
  host = await startSshHost({ authorizedKeys: [key.publicLine] });
  pool = createSshPool();
  outside = await fs.mkdtemp(path.join(os.tmpdir(), 'fd-outside-'));
  await fs.writeFile(path.join(outside, 'secret.txt'), SECRET);
});
afterAll(async () => {
  pool.closeAll();
  await host.close();
  await fs.rm(outside, { recursive: true, force: true });
});

beforeEach(async () => {
  await fs.rm(path.join(host.rootDir, 'www'), { recursive: true, force: true });
  domainDir = path.join(host.rootDir, 'www', 'example.test');
  await fs.mkdir(path.join(host.rootDir, 'www', 'other.example'), { recursive: true });
  await fs.writeFile(path.join(host.rootDir, 'www', 'other.example', 'secret.txt'), SECRET);
  await fs.writeFile(path.join(host.rootDir, 'secret-root.txt'), SECRET);
  files = openContentFs({ ssh: pool, target: target(), root: '/www/example.test' });
});

async function makeSite() {
  await fs.mkdir(path.join(domainDir, 'css'), { recursive: true });
  await fs.mkdir(path.join(domainDir, 'nested', 'deeper'), { recursive: true });
  await fs.writeFile(path.join(domainDir, 'index.html'), '<h1>hi</h1>');
  await fs.writeFile(path.join(domainDir, 'css', 'site.css'), 'body{}');
  await fs.symlink(outside, path.join(domainDir, 'link-out'));
  await fs.symlink('../other.example', path.join(domainDir, 'link-up'));
  await fs.symlink(path.join(outside, 'secret.txt'), path.join(domainDir, 'link-file'));
  await fs.symlink(path.join(outside, 'missing'), path.join(domainDir, 'dangling'));
  await fs.symlink('../../../other.example', path.join(domainDir, 'nested', 'deeper', 'link-back'));
  await fs.symlink('css', path.join(domainDir, 'link-inside'));
}

describe('paths', () => {
  it('names a domain directory in ASCII and refuses names that are not host names', () => {
    expect(domainDirName('Example.COM')).toBe('example.com');
    expect(domainDirName('пример.рф')).toBe('xn--e1afmkfd.xn--p1ai');
    for (const bad of ['..', '.', '', 'a/b', 'a\\b', '../x', 'a..b', '-a.com', 'a b.com']) {
      expect(() => domainDirName(bad), bad).toThrow(AppError);
    }
  });

  it('resolves client paths inside the root and refuses the rest lexically', () => {
    expect(resolveInside('/www/a.com', '')).toBe('/www/a.com');
    expect(resolveInside('/www/a.com', '/')).toBe('/www/a.com');
    expect(resolveInside('/www/a.com', '/css//site.css')).toBe('/www/a.com/css/site.css');
    expect(resolveInside('/www/a.com', './img/')).toBe('/www/a.com/img');
    for (const bad of ['..', 'a/../..', 'a\\b', 'x\u0000', '//etc', 'C:/x']) {
      expect(() => resolveInside('/www/a.com', bad), bad).toThrow(AppError);
    }
  });
});

describe('content files over SFTP', () => {
  it('creates the domain directory, then lists directories first and names in order', async () => {
    expect(await files.rootExists()).toBe(false);
    expect(((await failure(files.list(''))) as AppError).status).toBe(404);
    await files.createRoot();
    expect(((await failure(files.createRoot())) as AppError).status).toBe(409);
    expect(await files.rootExists()).toBe(true);
    await makeSite();
    await fs.writeFile(path.join(domainDir, 'B.txt'), 'b');
    await fs.writeFile(path.join(domainDir, 'a.txt'), 'a');
    const items = await files.list('/');
    expect(items.map((i) => [i.name, i.type])).toEqual([
      ['css', 'directory'],
      ['link-inside', 'directory'],
      ['link-out', 'directory'],
      ['link-up', 'directory'],
      ['nested', 'directory'],
      ['B.txt', 'file'],
      ['a.txt', 'file'],
      ['dangling', 'file'],
      ['index.html', 'file'],
      ['link-file', 'file'],
    ]);
    // A link that stays inside is followed.
    expect((await files.list('link-inside')).map((i) => i.name)).toEqual(['site.css']);
  });

  it(`refuses all ${TRAVERSAL_CORPUS.length} traversal attacks with zero escapes`, async () => {
    expect(TRAVERSAL_CORPUS.length).toBeGreaterThanOrEqual(50);
    await files.createRoot();
    await makeSite();
    const outsideBefore = await snapshot(outside);
    const siblingBefore = await snapshot(path.join(host.rootDir, 'www', 'other.example'));
    const rootSecret = await fs.readFile(path.join(host.rootDir, 'secret-root.txt'), 'utf8');
    const escapes: string[] = [];
    for (const attack of TRAVERSAL_CORPUS) {
      const results = [
        await failure(files.readFile(attack, 1_000_000).then((b) => b.toString())).then((e) => e),
        await failure(files.list(attack)),
        await failure(files.writeAtomic(attack, 'pwned')),
        await failure(files.writeAtomic(`${attack}/pwned.txt`, 'pwned')),
        await failure(files.mkdir(attack, 'pwned-dir')),
        await failure(files.rename(attack, 'renamed')),
        await failure(files.remove(attack)),
        await failure(files.readStream(attack).then(({ stream }) => stream.destroy())),
      ];
      for (const r of results) {
        if (r !== null && !(r instanceof AppError)) escapes.push(`${JSON.stringify(attack)}: ${String(r)}`);
        if (r instanceof AppError && r.status >= 500)
          escapes.push(`${JSON.stringify(attack)}: ${r.status} ${r.message}`);
      }
      // Reads of anything outside must never come back.
      const read = await files.readFile(attack, 1_000_000).then(
        (b) => b.toString(),
        () => '',
      );
      if (read.includes(SECRET)) escapes.push(`${JSON.stringify(attack)} read a secret`);
      // Make the site whole again for the next attack (a rename or remove may have hit an inside entry).
      await fs.rm(domainDir, { recursive: true, force: true });
      await fs.mkdir(domainDir, { recursive: true });
      await makeSite();
    }
    expect(escapes).toEqual([]);
    expect(await snapshot(outside)).toEqual(outsideBefore);
    expect(await snapshot(path.join(host.rootDir, 'www', 'other.example'))).toEqual(siblingBefore);
    expect(await fs.readFile(path.join(host.rootDir, 'secret-root.txt'), 'utf8')).toBe(rootSecret);
    expect(await fs.readdir(path.join(host.rootDir, 'www'))).toEqual(['example.test', 'other.example']);
  });

  it('saves atomically: the temp file is renamed over the original and nothing is left behind', async () => {
    await files.createRoot();
    await makeSite();
    await files.writeAtomic('index.html', '<h1>new</h1>');
    expect(await fs.readFile(path.join(domainDir, 'index.html'), 'utf8')).toBe('<h1>new</h1>');
    expect((await fs.readdir(domainDir)).filter((n) => n.endsWith('.fdtmp'))).toEqual([]);
    // A source that fails half way leaves the original untouched and no temp file.
    const broken = new Readable({
      read() {
        this.push(Buffer.alloc(50_000, 'x'));
        this.destroy(new Error('connection dropped'));
      },
    });
    expect(await failure(files.writeAtomic('index.html', broken))).toBeTruthy();
    expect(await fs.readFile(path.join(domainDir, 'index.html'), 'utf8')).toBe('<h1>new</h1>');
    expect((await fs.readdir(domainDir)).filter((n) => n.endsWith('.fdtmp'))).toEqual([]);
    // Past the size limit: 413, original kept.
    const big = await failure(files.writeAtomic('index.html', Buffer.alloc(2000), { maxBytes: 1000 }));
    expect((big as AppError).status).toBe(413);
    expect(await fs.readFile(path.join(domainDir, 'index.html'), 'utf8')).toBe('<h1>new</h1>');
    expect((await fs.readdir(domainDir)).filter((n) => n.endsWith('.fdtmp'))).toEqual([]);
  });

  it('writes streams into new folders, reads them back as streams, and walks the tree', async () => {
    await files.createRoot();
    const data = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    expect(
      await files.writeAtomic('site/img/big.bin', Readable.from([data.subarray(0, 1e6), data.subarray(1e6)])),
    ).toBe(data.length);
    const { stream, size } = await files.readStream('/site/img/big.bin');
    expect(size).toBe(data.length);
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    await files.writeAtomic('site/index.html', 'x');
    const walked: string[] = [];
    for await (const e of files.walk('')) walked.push(`${e.type}:${e.path}`);
    expect(walked).toEqual(['directory:site', 'directory:site/img', 'file:site/index.html', 'file:site/img/big.bin']);
    const limited = openContentFs({ ssh: pool, target: target(), root: '/www/example.test', maxWalkEntries: 2 });
    const err = await failure(
      (async () => {
        for await (const _ of limited.walk('')) void _;
      })(),
    );
    expect((err as AppError).status).toBe(413);
  });

  it('walks once for every caller: links left out and told, an abort and a time bound stop it', async () => {
    await files.createRoot();
    await makeSite();
    const links: string[] = [];
    const walked: string[] = [];
    for await (const e of files.walk('', { onLink: (p) => links.push(p) })) walked.push(`${e.type}:${e.path}`);
    expect(walked).toEqual([
      'directory:css',
      'file:index.html',
      'directory:nested',
      'file:css/site.css',
      'directory:nested/deeper',
    ]);
    expect(links.sort()).toEqual([
      'dangling',
      'link-file',
      'link-inside',
      'link-out',
      'link-up',
      'nested/deeper/link-back',
    ]);

    const aborted = new AbortController();
    aborted.abort(new Error('stopped'));
    const stopped = await failure(
      (async () => {
        for await (const _ of files.walk('', { signal: aborted.signal })) void _;
      })(),
    );
    expect((stopped as Error).message).toBe('stopped');

    // A deadline already passed: the first entry ends the walk as the server's timeout.
    const late = openContentFs({ ssh: pool, target: target(), root: '/www/example.test', maxWalkMs: -1 });
    const timedOut = await failure(
      (async () => {
        for await (const _ of late.walk('')) void _;
      })(),
    );
    expect((timedOut as AppError).status).toBe(504);
  });

  it('renames within a directory, refuses taken names, creates folders and removes trees', async () => {
    await files.createRoot();
    await makeSite();
    expect(await files.rename('css/site.css', 'main.css')).toBe('/css/main.css');
    expect(await fs.readFile(path.join(domainDir, 'css', 'main.css'), 'utf8')).toBe('body{}');
    expect(((await failure(files.rename('index.html', 'css'))) as AppError).status).toBe(409);
    expect(((await failure(files.rename('index.html', '../x'))) as AppError).status).toBe(400);
    expect(((await failure(files.rename('missing.txt', 'x'))) as AppError).status).toBe(404);
    expect(await files.mkdir('/css', 'fonts')).toBe('/css/fonts');
    expect(((await failure(files.mkdir('/css', 'fonts'))) as AppError).status).toBe(409);
    await files.writeAtomic('css/fonts/a/b/c.txt', 'deep');
    await files.remove('css');
    expect(await fs.readdir(domainDir)).not.toContain('css');
    // Removing a link removes the link, never what it points to.
    await files.remove('link-inside');
    // A link that leads outside is removed too (it was refused with 400, issue 26); what it points to stays.
    await files.remove('link-out');
    await files.remove('/link-file');
    await files.remove('dangling');
    expect(await fs.readdir(domainDir)).not.toEqual(expect.arrayContaining(['link-out']));
    expect(await fs.readdir(domainDir)).not.toContain('link-file');
    expect(await fs.readdir(domainDir)).not.toContain('dangling');
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    // Nothing is removed through a link: a path below it is still refused.
    expect(((await failure(files.remove('link-up/secret.txt'))) as AppError).status).toBe(400);
    expect(await fs.readFile(path.join(host.rootDir, 'www', 'other.example', 'secret.txt'), 'utf8')).toBe(SECRET);
    expect(((await failure(files.remove(''))) as AppError).status).toBe(400);
    expect(((await failure(files.remove('nothing-here'))) as AppError).status).toBe(404);
  });

  it('reports the host key once on first use', async () => {
    const seen: string[] = [];
    const f = openContentFs({ ssh: pool, target: target(), root: '/www/example.test', onHostKey: (k) => seen.push(k) });
    await f.rootExists();
    await f.rootExists();
    expect(seen).toEqual([host.hostKeyFingerprint]);
  });

  it('writes many files through one writer, each directory checked once, never outside the root', async () => {
    await makeSite();
    const before = await snapshot(outside);
    const writer = await files.openWriter();
    try {
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => writer.write(`deep/a${i % 3}/b/file-${i}.txt`, `content ${i}`)),
      );
      expect(await fs.readFile(path.join(domainDir, 'deep', 'a2', 'b', 'file-29.txt'), 'utf8')).toBe('content 29');
      // Through a directory link that leads out: refused, nothing written there.
      const out = await failure(writer.write('link-out/evil.txt', 'x'));
      expect(out).toBeInstanceOf(AppError);
      expect((out as AppError).status).toBe(400);
      const up = await failure(writer.write('link-up/evil.txt', 'x'));
      expect((up as AppError).status).toBe(400);
      for (const bad of ['../escape.txt', '/../escape.txt', 'a/../../escape.txt', 'x\\..\\y', 'nul\u0000.txt', '']) {
        const err = await failure(writer.write(bad, 'x'));
        expect(err, bad).toBeInstanceOf(AppError);
        expect((err as AppError).status, bad).toBe(400);
      }
      // A link at the file's own name is replaced by the file, not written through.
      await writer.write('link-file', 'replaced');
      expect((await fs.lstat(path.join(domainDir, 'link-file'))).isSymbolicLink()).toBe(false);
      // Inside links are fine; a file where a directory is needed is a 409.
      await writer.write('link-inside/extra.css', 'a{}');
      expect(await fs.readFile(path.join(domainDir, 'css', 'extra.css'), 'utf8')).toBe('a{}');
      expect(((await failure(writer.write('index.html/x', 'x'))) as AppError).status).toBe(409);
    } finally {
      writer.close();
    }
    expect(await snapshot(outside)).toEqual(before);
    expect(await fs.readFile(path.join(host.rootDir, 'www', 'other.example', 'secret.txt'), 'utf8')).toBe(SECRET);
    expect((await fs.readdir(domainDir, { recursive: true })).filter((f) => f.endsWith('.fdtmp'))).toEqual([]);
  });
});
