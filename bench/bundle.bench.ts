/**
 * npm run bench:bundle: builds the web app and prints the gzipped JavaScript (and CSS) a first visit loads:
 * the entry chunk with its static imports, plus the lazy chunks the page's route needs (with theirs), for
 * /login and /domains, and the whole build. Writes the table to bench/results/bundle.txt.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { matchPath } from 'react-router';

type Chunk = { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[]; css?: string[] };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'apps/web');
const DIST = path.join(WEB, 'dist');
const LIMIT_DOMAINS_KB = 150;

if (!process.argv.includes('--no-build')) {
  // The same build as npm run build, plus the manifest that names each chunk's static imports.
  execFileSync('npx', ['vite', 'build', '--manifest'], { cwd: WEB, stdio: ['ignore', 'ignore', 'inherit'] });
}
const manifest = JSON.parse(fs.readFileSync(path.join(DIST, '.vite/manifest.json'), 'utf8')) as Record<string, Chunk>;
const gz = new Map<string, number>();
const gzipped = (file: string) => {
  if (!gz.has(file)) gz.set(file, zlib.gzipSync(fs.readFileSync(path.join(DIST, file)), { level: 9 }).length);
  return gz.get(file)!;
};

/** A chunk and everything it imports statically: what the browser must fetch before it runs. */
function closure(keys: string[], into = new Set<string>()): Set<string> {
  for (const k of keys) {
    if (into.has(k) || !manifest[k]) continue;
    into.add(k);
    closure(manifest[k].imports ?? [], into);
  }
  return into;
}

// The lazy modules a path needs: its page (login) or the feature areas whose paths match it, read from the
// router's own table.
const router = fs.readFileSync(path.join(WEB, 'src/app/router.tsx'), 'utf8');
const areaModules = (pathname: string) =>
  [...router.matchAll(/paths: \[([^\]]*)\][\s\S]*?import\('\.\.\/(features\/[^']+)'\)/g)]
    .filter((m) => [...m[1]!.matchAll(/'([^']+)'/g)].some((p) => matchPath({ path: p[1]!, end: true }, pathname)))
    .map((m) => `src/${m[2]}`);
const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry)!;
const pages: Record<string, string[]> = {
  '/login': ['src/app/pages/login-page.tsx'],
  '/domains': areaModules('/domains'),
};

const kb = (n: number) => (n / 1024).toFixed(1).padStart(7);
const lines: string[] = [];
const row = (name: string, keys: Set<string>) => {
  const files = [...keys].map((k) => manifest[k]!.file);
  const css = new Set([...keys].flatMap((k) => manifest[k]!.css ?? []));
  const js = files.reduce((n, f) => n + gzipped(f), 0);
  const cssBytes = [...css].reduce((n, f) => n + gzipped(f), 0);
  lines.push(`${name.padEnd(12)} ${kb(js)} KB JS ${kb(cssBytes)} KB CSS  (${files.length} chunks)`);
  return js;
};

lines.push(
  `Gzipped bytes a first visit loads (entry chunk + static imports + the route's lazy chunks), ${new Date().toISOString().slice(0, 10)}`,
);
const entryOnly = closure([entry]);
row('entry', entryOnly);
const totals: Record<string, number> = {};
for (const [page, modules] of Object.entries(pages)) {
  const missing = modules.filter((m) => !manifest[m]);
  if (missing.length) throw new Error(`not in the manifest: ${missing.join(', ')}`);
  totals[page] = row(page, closure([entry, ...modules]));
}
const allJs = Object.values(manifest)
  .map((c) => c.file)
  .filter((f, i, a) => f.endsWith('.js') && a.indexOf(f) === i);
const all = allJs.reduce((n, f) => n + gzipped(f), 0);
lines.push(
  `${'all chunks'.padEnd(12)} ${kb(all)} KB JS  (${allJs.length} chunks; the file editor's CodeMirror is one lazy chunk)`,
);
lines.push(
  `/domains ${totals['/domains']! / 1024 <= LIMIT_DOMAINS_KB ? 'within' : 'OVER'} the ${LIMIT_DOMAINS_KB} KB aim; ` +
    `/login ${totals['/login']! < totals['/domains']! ? 'below' : 'NOT below'} /domains`,
);
const out = lines.join('\n');
console.log(out);
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench/results/bundle.txt'), `${out}\n`);
