/**
 * npm run bench:bundle: builds the web app, starts the demo server on it, and counts the gzipped JavaScript a
 * browser fetches on a first visit (every script response, as Chromium receives it, with an empty cache): /login
 * signed out, and /domains signed in. Also lists the chunks each visit fetched, largest first (what to cut next),
 * and the whole build. Writes the table to bench/results/bundle.txt.
 *
 *   npm run bench:bundle                 (build, then measure)
 *   npm run bench:bundle -- --no-build   (measure the build in apps/web/dist)
 *   BUNDLE_PORT=3190 CHROMIUM=/usr/bin/chromium npm run bench:bundle
 *
 * The browser is asked for gzip only (the server also has brotli, smaller still): the aims are gzip figures.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from '@playwright/test';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'apps/web');
const DIST = path.join(WEB, 'dist');
const AIMS_KB: Record<string, number> = { '/login': 110, '/domains': 150 };
const PORT = Number(process.env.BUNDLE_PORT ?? 3190);
const BASE = `http://127.0.0.1:${PORT}`;
const CHROMIUM = process.env.CHROMIUM ?? (fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);

if (!process.argv.includes('--no-build')) {
  execFileSync('npx', ['vite', 'build'], { cwd: WEB, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The demo server on the build, with its own scratch data directory. */
async function startServer() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetdesk-bundle-'));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/api/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, DEMO: '1', PORT: String(PORT), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the demo server exited (${child.exitCode})`);
    if (Date.now() > deadline) throw new Error('the demo server did not answer /healthz within 180 s');
    const ok = await fetch(`${BASE}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { stop };
}

type Fetched = { file: string; bytes: number };

/** Opens a page in a fresh context (empty cache) and records every script response until it is ready. */
async function visit(browser: Browser, pathname: string, token: string | null, ready: (page: Page) => Promise<void>) {
  const context = await browser.newContext({ extraHTTPHeaders: { 'Accept-Encoding': 'gzip' } });
  if (token) {
    await context.addInitScript((t) => localStorage.setItem('fleetdesk.token', t), token);
  }
  const page = await context.newPage();
  const pending: Promise<Fetched | null>[] = [];
  page.on('response', (response) => {
    const type = response.headers()['content-type'] ?? '';
    if (response.request().resourceType() !== 'script' && !type.includes('javascript')) return;
    pending.push(
      (async () => {
        const encoding = response.headers()['content-encoding'];
        const file = new URL(response.url()).pathname;
        // Tiny chunks below the server's 1 KB threshold are sent as they are; anything else must be gzip, or the
        // figure would not be the one the aim speaks of.
        const sizes = await response.request().sizes();
        const bytes = sizes.responseBodySize;
        if (encoding !== 'gzip' && bytes >= 1024) throw new Error(`${file} came ${encoding ?? 'uncompressed'}`);
        return { file, bytes };
      })(),
    );
  });
  await page.goto(`${BASE}${pathname}`);
  await ready(page);
  // Anything the page fetches once it shows (prefetches) belongs to the first visit as well.
  await page.waitForLoadState('networkidle');
  const fetched = (await Promise.all(pending)).filter((f): f is Fetched => f !== null);
  await context.close();
  return fetched;
}

async function signIn(): Promise<string> {
  const r = await fetch(`${BASE}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'admin' }),
  });
  const token = r.headers.get('authorization');
  if (!r.ok || !token) throw new Error(`sign-in failed: ${r.status}`);
  return token;
}

const kb = (n: number) => (n / 1024).toFixed(1).padStart(7);
const server = await startServer();
let browser: Browser | undefined;
const lines: string[] = [];
try {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--disable-background-networking'] });
  const token = await signIn();
  const visits: [string, Fetched[]][] = [
    ['/login', await visit(browser, '/login', null, (p) => p.getByRole('button', { name: 'Login' }).waitFor())],
    [
      '/domains',
      await visit(browser, '/domains', token, (p) => p.getByRole('heading', { name: 'Domains' }).first().waitFor()),
    ],
  ];
  const load = os.loadavg()[0]!.toFixed(1);
  lines.push(
    `Gzipped JavaScript a first visit fetches in Chromium (every script response, empty cache), ` +
      `${new Date().toISOString().slice(0, 10)}, load average ${load} (bytes do not depend on it)`,
  );
  const verdicts: string[] = [];
  for (const [name, fetched] of visits) {
    const total = fetched.reduce((n, f) => n + f.bytes, 0);
    lines.push(`${name.padEnd(12)} ${kb(total)} KB JS  (${fetched.length} scripts)`);
    const aim = AIMS_KB[name]!;
    verdicts.push(`${name} ${total / 1024 <= aim ? 'within' : 'OVER'} the ${aim} KB aim`);
  }
  const allJs = fs.readdirSync(path.join(DIST, 'assets')).filter((f) => f.endsWith('.js'));
  const all = allJs.reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(DIST, 'assets', f))).length, 0);
  lines.push(`${'all chunks'.padEnd(12)} ${kb(all)} KB JS  (${allJs.length} chunks)`);
  lines.push(verdicts.join('; '));
  for (const [name, fetched] of visits) {
    lines.push('', `${name}, largest first:`);
    for (const f of [...fetched].sort((a, b) => b.bytes - a.bytes)) lines.push(`  ${kb(f.bytes)} KB  ${f.file}`);
  }
} finally {
  await browser?.close();
  await server.stop();
}
const out = lines.join('\n');
console.log(out);
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench/results/bundle.txt'), `${out}\n`);
