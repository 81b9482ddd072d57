import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Graceful shutdown with real processes on the embedded database: `npm start`'s wrapper passes SIGTERM on, the
 * server refuses new connections, answers the request in flight, and exits 0; a job's step in flight finishes,
 * the job goes back to the queue and the next process resumes it from the next step.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-shutdown-'));
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) if (child.pid) process.kill(-child.pid, 'SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Proc = { child: ChildProcess; out: () => string; waitFor: (re: RegExp, ms?: number) => Promise<RegExpMatchArray> };

function run(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: '',
      LOG_LEVEL: 'info',
      APP_SECRET_KEY: crypto.randomBytes(32).toString('hex'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so cleanup reaches the server under the npm start wrapper too.
    detached: true,
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out = (out + String(d)).slice(-200_000);
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const waitFor = (re: RegExp, ms = 150_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const m = out.match(re);
        if (m) {
          listeners.delete(check);
          clearTimeout(timer);
          resolve(m);
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no ${re} within ${ms} ms; output:\n${out.slice(-3000)}`));
      }, ms);
      listeners.add(check);
      check();
    });
  return { child, out: () => out, waitFor };
}

const exitOf = (child: ChildProcess, ms = 30_000) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null)
      return resolve({ code: child.exitCode, signal: child.signalCode });
    const timer = setTimeout(() => reject(new Error(`process did not exit within ${ms} ms`)), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });

const connect = (port: number) =>
  new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });

describe('graceful shutdown (real processes)', () => {
  it('npm start: SIGTERM to the wrapper refuses new connections, answers the request in flight, exits 0', async () => {
    const web = path.join(tmp, 'web');
    fs.mkdirSync(web, { recursive: true });
    fs.writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>t</title>');
    const p = run([path.join(ROOT, 'scripts/start.mjs')], {
      PORT: '0',
      DATA_DIR: path.join(tmp, 'start'),
      WEB_DIST: web,
      ADMIN_PASSWORD: 'shutdown-test-password',
      SHUTDOWN_GRACE_SECONDS: '10',
    });
    const port = Number((await p.waitFor(/is serving http:\/\/127\.0\.0\.1:(\d+)/))[1]);

    // A sign-in whose body is still arriving when the signal comes.
    const body = JSON.stringify({ username: 'admin', password: 'not-the-password' });
    const sock = await connect(port);
    let answer = '';
    sock.on('data', (d) => (answer += String(d)));
    const closed = new Promise((r) => sock.once('close', r));
    sock.write(
      `POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
        body.slice(0, 10),
    );
    await new Promise((r) => setTimeout(r, 300));
    p.child.kill('SIGTERM');
    await p.waitFor(/shutting down/);

    // No new connection is accepted while the old one finishes (the listener closes a moment after the log line).
    let refused = '';
    for (let i = 0; i < 50 && !refused; i++) {
      refused = await connect(port).then(
        (s) => (s.destroy(), ''),
        (e: Error) => e.message,
      );
      if (!refused) await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused).toMatch(/ECONNREFUSED/);
    sock.write(body.slice(10));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);

    expect(await exitOf(p.child)).toEqual({ code: 0, signal: null });
    expect(p.out()).toMatch(/"msg":"stopped"/);
  }, 400_000);

  it('keep-alive load at SIGTERM: every request is answered (503 with Connection: close), none is reset', async () => {
    // Sixteen clients as fast as the server answers pass the per-address limit on a quick machine (429s, not the
    // shutdown's answers): the limits are tested elsewhere.
    const env = {
      DATA_DIR: path.join(tmp, 'keepalive'),
      SHUTDOWN_GRACE_SECONDS: '10',
      STEP_MS: '1500',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_ADDRESS_PER_MINUTE: '1000000',
    };
    const p = run(['--import', 'tsx', path.join(HERE, '../test/shutdown-app.ts'), 'start'], env);
    const port = Number((await p.waitFor(/ready (\d+)/))[1]);
    await p.waitFor(/step one started/);
    const outcomes: string[] = [];
    /** One keep-alive client: a request as soon as the last answer came; stops at a 503 or a refused connection. */
    const client = async () => {
      let sock: net.Socket | undefined;
      let ended = true;
      for (let n = 0; n < 10_000; n++) {
        if (ended) {
          try {
            sock = await connect(port);
          } catch (err) {
            return outcomes.push(`refused ${(err as NodeJS.ErrnoException).code}`);
          }
          ended = false;
          sock.once('end', () => (ended = true));
          sock.once('close', () => (ended = true));
        }
        const s = sock!;
        const answer = await new Promise<string>((resolve) => {
          let got = '';
          const onData = (d: Buffer) => {
            got += String(d);
            const head = got.split('\r\n\r\n')[0]!;
            const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? -1);
            if (len >= 0 && got.length >= head.length + 4 + len) done(head);
          };
          const onGone = (err?: Error) => done(`lost ${err ? (err as NodeJS.ErrnoException).code : 'closed'}`);
          const done = (v: string) => {
            s.off('data', onData);
            s.off('error', onGone);
            s.off('close', onGone);
            resolve(v);
          };
          s.on('data', onData);
          s.on('error', onGone);
          s.on('close', onGone);
          s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
        });
        if (answer.startsWith('lost')) return outcomes.push(answer);
        const status = answer.split(' ')[1];
        if (status === '503') {
          s.destroy();
          return outcomes.push(/connection: close/i.test(answer) ? '503 close' : '503 keep-alive');
        }
        if (status !== '200') return outcomes.push(`status ${status}`);
      }
      return outcomes.push('never stopped');
    };
    const clients = Array.from({ length: 16 }, client);
    await new Promise((r) => setTimeout(r, 300));
    p.child.kill('SIGTERM');
    await Promise.all(clients);
    expect(outcomes.filter((o) => o !== '503 close' && !o.startsWith('refused'))).toEqual([]);
    // The shutdown answered them rather than only refusing new connections.
    expect(outcomes).toContain('503 close');
    expect(await exitOf(p.child)).toEqual({ code: 0, signal: null });
  }, 400_000);

  it('a job step in flight finishes; the job goes back to the queue and the next process resumes it', async () => {
    const env = { DATA_DIR: path.join(tmp, 'jobs'), SHUTDOWN_GRACE_SECONDS: '10', STEP_MS: '1500' };
    const app = path.join(HERE, '../test/shutdown-app.ts');
    const first = run(['--import', 'tsx', app, 'start'], env);
    const jobId = (await first.waitFor(/job ([0-9a-f-]{36})/))[1]!;
    await first.waitFor(/step one started/);
    first.child.kill('SIGTERM');
    expect(await exitOf(first.child)).toEqual({ code: 0, signal: null });
    expect(first.out()).toContain('step one done');
    expect(first.out()).not.toContain('step two started');

    const second = run(['--import', 'tsx', app, 'resume'], { ...env, JOB_ID: jobId });
    const finished = JSON.parse((await second.waitFor(/finished (\{.*\})/))[1]!) as {
      state: string;
      steps: { key: string; status: string }[];
    };
    expect(finished.state).toBe('completed');
    expect(finished.steps.map((s) => s.status)).toEqual(['done', 'done', 'done']);
    // Step one ran once, in the first process: the second started at step two.
    expect(second.out()).not.toContain('step one started');
    expect(second.out()).toContain('step two started');
    second.child.kill('SIGTERM');
    expect(await exitOf(second.child)).toEqual({ code: 0, signal: null });
  }, 400_000);

  it('past the grace period a step is cut off and handed back, and the process still exits 0', async () => {
    const env = { DATA_DIR: path.join(tmp, 'grace'), SHUTDOWN_GRACE_SECONDS: '0.5', STEP_MS: '30000' };
    const p = run(['--import', 'tsx', path.join(HERE, '../test/shutdown-app.ts'), 'start'], env);
    await p.waitFor(/step one started/);
    const t0 = Date.now();
    p.child.kill('SIGTERM');
    expect(await exitOf(p.child)).toEqual({ code: 0, signal: null });
    // Well before the 30 s step would have ended (a loose bound: this machine may be busy).
    expect(Date.now() - t0).toBeLessThan(20_000);
    // Handed back, not failed: queued again with the cut-off step still to do.
    const next = run(['--import', 'tsx', path.join(HERE, '../test/shutdown-app.ts'), 'resume'], {
      ...env,
      JOB_ID: (p.out().match(/job ([0-9a-f-]{36})/) ?? [])[1] ?? '',
    });
    const before = JSON.parse((await next.waitFor(/before (\{.*\})/))[1]!) as {
      state: string;
      error: string | null;
      steps: { status: string }[];
    };
    expect(before.state).toMatch(/queued|running/);
    expect(before.error).toBeNull();
    expect(before.steps[0]!.status).not.toBe('failed');
    next.child.kill('SIGKILL');
  }, 400_000);
});
