import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm start` under a process supervisor (issue 26): SIGTERM to the npm process must stop the whole tree (npm,
 * scripts/start.mjs, the server), leave nothing listening, and end with status 0.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

describe('npm start', () => {
  it('stops the server, and exits 0, when the npm process gets SIGTERM', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-start-'));
    // An empty build directory: no web build is made, the API serves alone.
    const webDist = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-start-web-'));
    dirs.push(dataDir, webDist);
    const npm = spawn('npm', ['start'], {
      cwd: root,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        WEB_DIST: webDist,
        PORT: '0',
        HOST: '127.0.0.1',
        ADMIN_PASSWORD: 'start-test-password',
        DATABASE_URL: '',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    const port = await new Promise<number>((resolve, reject) => {
      const onData = (d: Buffer) => {
        output += String(d);
        const m = /is serving http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (m) resolve(Number(m[1]));
      };
      npm.stdout.on('data', onData);
      npm.stderr.on('data', onData);
      void exited.then((code) => reject(new Error(`npm start ended (${code}) before serving:\n${output}`)));
    });
    expect(await listening(port)).toBe(true);

    npm.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The server went with it: the port is free (the wrapper exits only after the server did).
    expect(await listening(port)).toBe(false);
  }, 180_000);
});
