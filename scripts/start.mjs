#!/usr/bin/env node
// npm start / npm run demo: build the web app when no build is present, then run the API, which serves it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const demo = process.argv.includes('--demo');
const dist = path.join(root, 'apps/web/dist/index.html');

if (!fs.existsSync(dist)) {
  console.log('No web build found; building it once (npm run build)…');
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const env = { ...process.env };
if (demo) env.DEMO = '1';
const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
const child = spawn(process.execPath, [tsx, path.join(root, 'apps/api/src/main.ts')], {
  cwd: root,
  env,
  stdio: 'inherit',
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
