#!/usr/bin/env node
// npm start / npm run demo: build the web app when no build is present, then run the API, which serves it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const demo = process.argv.includes('--demo');
const dist = path.join(root, 'apps/web/dist/index.html');

// WEB_DIST names a build made elsewhere (or none, for an API-only process): nothing to build here then.
if (!process.env.WEB_DIST && !fs.existsSync(dist)) {
  console.log('No web build found; building it once (npm run build)…');
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const env = { ...process.env };
if (demo) env.DEMO = '1';
// One process under this wrapper: node with tsx's loader (the tsx CLI would add a second one in between).
const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/api/src/main.ts')], {
  cwd: root,
  env,
  stdio: 'inherit',
});
// The server shuts down gracefully on SIGTERM/SIGINT; the wrapper passes the signal on and waits for it to finish.
// (`npm start` runs this file through `exec`, so a signal sent to npm reaches this process too.)
const stop = (sig) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(sig);
};
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => stop(sig === 'SIGHUP' ? 'SIGTERM' : sig));
// Whatever started this process (npm, a shell) went away without passing a signal on: the server stops too,
// rather than keep the port as an orphan.
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid !== parent) stop('SIGTERM');
}, 500);
watch.unref();
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
