#!/usr/bin/env node
// npm run dev: the API with reload on change (tsx watch) and Vite's dev server for the web app, which proxies
// /api, /auth and /healthz to the API (apps/web/vite.config.ts). `npm run dev -- --demo` runs the API in demo mode.
// PORT is the API's port (3000), WEB_PORT Vite's (5173). Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const apiPort = process.env.PORT || '3000';
const webPort = process.env.WEB_PORT || '5173';
const env = { ...process.env, PORT: apiPort, FLEETDESK_API_URL: `http://127.0.0.1:${apiPort}` };
if (process.argv.includes('--demo')) env.DEMO = '1';

const children = [];
let stopping = false;

function stop(code = 0) {
  stopping = true;
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const c of running) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
  Promise.all(running.map((c) => new Promise((resolve) => c.on('exit', resolve)))).then(() => process.exit(code));
}

function run(name, args, cwd) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `[${name}] `;
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(`${prefix}${line}\n`);
    });
  }
  // One side ending (a crash, a port in use) ends the other, so nothing is left running unseen.
  child.on('exit', (code, signal) => {
    if (stopping) return;
    console.log(`${prefix}exited (${signal ?? code}); stopping`);
    stop(code || 1);
  });
  children.push(child);
}

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => stop(0));

run(
  'api',
  [
    path.join(root, 'node_modules/tsx/dist/cli.mjs'),
    'watch',
    '--clear-screen=false',
    // The contract is imported from source: a change there reloads the API too.
    '--include',
    path.join(root, 'packages/contract/src'),
    path.join(root, 'apps/api/src/main.ts'),
  ],
  root,
);

// The web workspace's own Vite (the root one belongs to vitest and may be another version).
const viteBin = path.join(
  path.dirname(createRequire(path.join(root, 'apps/web/package.json')).resolve('vite/package.json')),
  'bin/vite.js',
);
run('web', [viteBin, '--port', webPort, '--strictPort'], path.join(root, 'apps/web'));

console.log(`Fleetdesk dev: open http://127.0.0.1:${webPort} (API on http://127.0.0.1:${apiPort})`);
