/**
 * The parser against wget and wget2, on the same local site, in the same run.
 *
 *   npm run bench:parser                       300 pages, 20 ms per answer, concurrency 8
 *   npm run bench:parser -- --pages 100 --delay 20 --concurrency 8 --out bench/results/parser.txt
 *
 * A site of N pages on 127.0.0.1: each page links to 10 others and references 2 CSS, 2 JS and 5 PNG files of its
 * own; the server waits `delay` ms before every answer. Ours: the parser (the job's own code: fetcher, crawler,
 * rewriter) through the HTTP test proxy, writing every file over SFTP into the SSH test host with the content-file
 * layer, as the parsing job does. Then, each when installed, `wget --mirror --page-requisites --convert-links
 * --no-parent -e robots=off` into a temp directory, and the same with wget2 at our concurrency
 * (`--max-threads`). It checks each saved the same set of files as ours and prints files per second, bytes, and
 * the ratio. The site, the proxy and the SSH host each run in a process of their own (parser-servers.ts), as
 * other machines would, so that ours does not share its thread with them. It prints figures and never asserts a time.
 */
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createSshPool, generateKeyPair } from '../apps/api/src/files/ssh/index.ts';
import { openContentFs } from '../apps/api/src/files/content/index.ts';
import { createFetcher, DEFAULT_USER_AGENT, mirrorSite } from '../apps/api/src/parser/index.ts';
import type { ServerReady, ServerSetup } from './parser-servers.ts';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const outIndex = args.indexOf('--out');
const OUT = outIndex >= 0 ? args[outIndex + 1]! : 'bench/results/parser-300-pages.txt';
const PAGES = arg('pages', 300);
const DELAY = arg('delay', 20);
const CONCURRENCY = arg('concurrency', 8);

const lines: string[] = [];
const say = (s: string) => {
  lines.push(s);
  console.log(s);
};
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MiB`;

/** Every file under a directory, relative, with its size. */
function tree(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), fs.statSync(p).size);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

// The site, the proxy and the SSH host each run in a process of their own, as other machines would
// (parser-servers.ts).
const key = generateKeyPair('ed25519');
const startServer = async (setup: ServerSetup) => {
  const child = fork(fileURLToPath(new URL('./parser-servers.ts', import.meta.url)), { stdio: 'inherit' });
  child.send(setup);
  const [ready] = (await once(child, 'message')) as [ServerReady];
  return { child, ...ready };
};
const [site, proxy, host] = await Promise.all([
  startServer({ role: 'site', pages: PAGES, delay: DELAY }),
  startServer({ role: 'proxy' }),
  startServer({ role: 'ssh', publicLine: key.publicLine }),
]);
const ssh = createSshPool();
const root = '/www/bench.example';
fs.mkdirSync(path.join(host.rootDir, root), { recursive: true });
const files = openContentFs({
  ssh,
  target: {
    serverId: 'bench',
    host: '127.0.0.1',
    port: host.port,
    username: 'root',
    privateKey: key.privateKey,
    knownHostFingerprint: null,
  },
  root,
});

say(`Parser benchmark: ${PAGES} pages (each: 10 links, 2 CSS, 2 JS, 5 PNG), ${DELAY} ms before every answer`);
say(`node ${process.version}, ${os.cpus().length} CPUs, ${new Date().toISOString()}`);
say('');

// Ours.
const fetcher = createFetcher({
  proxies: [
    {
      proxyType: 'http',
      isHttps: false,
      IPAddress: '127.0.0.1',
      httpPort: proxy.port,
      username: 'bench',
      password: 'bench',
    },
  ],
  concurrency: CONCURRENCY,
  timeoutMs: 20_000,
  retries: 2,
  backoffMs: 500,
  maxFileBytes: 50 * 1024 * 1024,
  userAgent: DEFAULT_USER_AGENT,
  rejectUnauthorized: true,
});
const start = performance.now();
const writer = await files.openWriter();
const result = await mirrorSite({
  startUrl: new URL(`${site.url}/`),
  singlePage: false,
  fetcher,
  concurrency: CONCURRENCY,
  maxPages: 100_000,
  maxJobBytes: 10 * 1024 * 1024 * 1024,
  signal: new AbortController().signal,
  write: async (p, body) => {
    await writer.write(p, body);
  },
});
writer.close();
const oursSeconds = (performance.now() - start) / 1000;
await fetcher.close();
const oursTree = tree(path.join(host.rootDir, root));
const oursBytes = [...oursTree.values()].reduce((a, b) => a + b, 0);
const oursRate = oursTree.size / oursSeconds;
say(
  `ours  (through the HTTP test proxy, into the SSH test host, concurrency ${CONCURRENCY}): ${oursTree.size} files, ` +
    `${mib(oursBytes)} in ${oursSeconds.toFixed(2)} s = ${oursRate.toFixed(1)} files/s; errors ${result.errors}`,
);

/**
 * A mirroring client on the same site, direct to a local temp directory: wget (one file at a time) and wget2
 * (parallel, at our concurrency), each when installed.
 */
async function mirrorWith(name: 'wget' | 'wget2', extra: string[]) {
  if (spawnSync(name, ['--version'], { stdio: 'ignore' }).status !== 0) {
    say(`${name}: not installed; no comparison`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `fd-bench-${name}-`));
  const started = performance.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(
      name,
      [
        '--mirror',
        '--page-requisites',
        '--convert-links',
        '--no-parent',
        '-e',
        'robots=off',
        ...extra,
        '-q',
        '-P',
        dir,
        `${site.url}/`,
      ],
      { stdio: 'ignore' },
    );
    child.on('exit', resolve);
  });
  const seconds = (performance.now() - started) / 1000;
  // One directory per host (wget names it host:port); whichever name the client chose.
  const hostDirs = fs.readdirSync(dir);
  const theirs = hostDirs.length === 1 ? tree(path.join(dir, hostDirs[0]!)) : new Map<string, number>();
  const bytes = [...theirs.values()].reduce((a, b) => a + b, 0);
  const rate = theirs.size / seconds;
  const how = extra.length ? `${extra.join(' ')}, ` : '';
  say(
    `${name.padEnd(5)} (direct, no proxy, ${how}to a local disk; exit ${code}): ${theirs.size} files, ` +
      `${mib(bytes)} in ${seconds.toFixed(2)} s = ${rate.toFixed(1)} files/s`,
  );
  const onlyOurs = [...oursTree.keys()].filter((f) => !theirs.has(f));
  const onlyTheirs = [...theirs.keys()].filter((f) => !oursTree.has(f));
  const same = !onlyOurs.length && !onlyTheirs.length;
  say(
    same
      ? `file sets: the same ${oursTree.size} paths`
      : `file sets DIFFER: only ours ${onlyOurs.length} (${onlyOurs.slice(0, 5).join(', ')}), only ${name} ${onlyTheirs.length} (${onlyTheirs.slice(0, 5).join(', ')})`,
  );
  say(`ratio: ${(oursRate / rate).toFixed(2)}× ${name}'s files per second${same ? '' : ' (file sets differ)'}`);
  fs.rmSync(dir, { recursive: true, force: true });
}
await mirrorWith('wget', []);
// wget2 fetches in parallel: the same number of connections as ours. No HTTP/2 on this plain-HTTP site anyway.
await mirrorWith('wget2', [`--max-threads=${CONCURRENCY}`, '--no-robots']);

ssh.closeAll();
proxy.child.send('count');
const [tunnels] = (await once(proxy.child, 'message')) as [{ count: number }];
say(`(the test proxy tunnelled ${tunnels.count} keep-alive connections for ours)`);
for (const s of [site, proxy, host]) s.child.send('close');
await Promise.all([site, proxy, host].map((s) => once(s.child, 'exit')));
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, `${lines.join('\n')}\n`);
console.log(`\nwritten to ${OUT}`);
