/**
 * The content-files layer against a real OpenSSH sshd: path safety (the traversal corpus, with links pointing out
 * created on the host), atomic save with posix-rename, streaming, rename and remove. Runs only when REAL_SSHD_PORT
 * is set (CI starts one):
 *   eval "$(bash scripts/real-sshd.sh)" && npx vitest run apps/api/src/files/content/real-sshd-content.test.ts
 * Test-only reads of process.env: these variables configure the harness, not the app.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.ts';
import { createSshPool, type SshPool } from '../ssh/ssh-pool.ts';
import { openContentFs, type ContentFs } from './content-fs.ts';
import { TRAVERSAL_CORPUS } from './traversal-corpus.ts';

const env = process.env;
const SECRET = 'REAL-SSHD-SECRET';
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

if (!env.REAL_SSHD_PORT) {
  // Reached only when the file is named explicitly without an sshd (npm test leaves it out): fail, never skip.
  it('needs a real OpenSSH sshd', () => {
    throw new Error('REAL_SSHD_PORT is not set: start an sshd with scripts/real-sshd.sh first');
  });
} else {
  describe('content files against a real OpenSSH sshd', () => {
    // The sshd runs on this machine, so the test prepares the host's directories directly.
    const base = fs.mkdtempSync(path.join(env.REAL_SSHD_DIR ?? '/tmp', 'content-'));
    const www = path.join(base, 'www');
    const dir = path.join(www, 'example.test');
    const outside = path.join(base, 'outside');
    let pool: SshPool;
    let files: ContentFs;

    const makeSite = () => {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(path.join(dir, 'css'), { recursive: true });
      fs.mkdirSync(path.join(dir, 'nested', 'deeper'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'index.html'), '<h1>hi</h1>');
      fs.symlinkSync(outside, path.join(dir, 'link-out'));
      fs.symlinkSync('../other.example', path.join(dir, 'link-up'));
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'link-file'));
      fs.symlinkSync(path.join(outside, 'missing'), path.join(dir, 'dangling'));
      fs.symlinkSync('../../../other.example', path.join(dir, 'nested', 'deeper', 'link-back'));
    };

    beforeAll(() => {
      fs.mkdirSync(path.join(www, 'other.example'), { recursive: true });
      fs.writeFileSync(path.join(www, 'other.example', 'secret.txt'), SECRET);
      fs.mkdirSync(outside, { recursive: true });
      fs.writeFileSync(path.join(outside, 'secret.txt'), SECRET);
      pool = createSshPool();
      files = openContentFs({
        ssh: pool,
        target: {
          serverId: 'real-sshd',
          host: env.REAL_SSHD_HOST ?? '127.0.0.1',
          port: Number(env.REAL_SSHD_PORT),
          username: env.REAL_SSHD_USER ?? 'root',
          privateKey: fs.readFileSync(env.REAL_SSHD_KEY ?? '', 'utf8'),
          knownHostFingerprint: null,
        },
        root: dir,
      });
    });
    afterAll(() => {
      pool?.closeAll();
      fs.rmSync(base, { recursive: true, force: true });
    });

    it('creates the directory, lists, saves atomically over posix-rename, streams, renames and removes', async () => {
      expect(await files.rootExists()).toBe(false);
      await files.createRoot();
      expect(await files.rootExists()).toBe(true);
      await files.writeAtomic('index.html', '<h1>one</h1>');
      await files.writeAtomic('index.html', '<h1>two</h1>');
      expect(fs.readFileSync(path.join(dir, 'index.html'), 'utf8')).toBe('<h1>two</h1>');
      expect(fs.readdirSync(dir).filter((n) => n.endsWith('.fdtmp'))).toEqual([]);
      const data = Buffer.alloc(2 * 1024 * 1024 + 3, 9);
      expect(await files.writeAtomic('site/img/a.bin', Readable.from([data]))).toBe(data.length);
      const { stream } = await files.readStream('site/img/a.bin');
      const chunks: Buffer[] = [];
      for await (const c of stream) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).equals(data)).toBe(true);
      expect((await files.list('/')).map((i) => `${i.type}:${i.name}`)).toEqual(['directory:site', 'file:index.html']);
      expect(await files.rename('index.html', 'home.html')).toBe('/home.html');
      await files.remove('site');
      expect(fs.readdirSync(dir)).toEqual(['home.html']);
    });

    it(`lets none of the ${TRAVERSAL_CORPUS.length} traversal attacks out`, async () => {
      const problems: string[] = [];
      for (const attack of TRAVERSAL_CORPUS) {
        makeSite();
        const results = [
          await failure(
            files.readFile(attack, 1_000_000).then((b) => (b.toString().includes(SECRET) ? 'SECRET' : null)),
          ),
          await failure(files.list(attack)),
          await failure(files.writeAtomic(attack, 'pwned')),
          await failure(files.writeAtomic(`${attack}/pwned.txt`, 'pwned')),
          await failure(files.rename(attack, 'renamed')),
          await failure(files.remove(attack)),
        ];
        for (const r of results) {
          if (r !== null && !(r instanceof AppError)) problems.push(`${JSON.stringify(attack)}: ${String(r)}`);
          if (r instanceof AppError && r.status >= 500) problems.push(`${JSON.stringify(attack)}: ${r.message}`);
        }
        const read = await files.readFile(attack, 1_000_000).then(
          (b) => b.toString(),
          () => '',
        );
        if (read.includes(SECRET)) problems.push(`${JSON.stringify(attack)} read a secret`);
      }
      expect(problems).toEqual([]);
      expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
      expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
      expect(fs.readdirSync(path.join(www, 'other.example'))).toEqual(['secret.txt']);
    }, 300_000);
  });
}
