import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config.ts';
import { createContainer, type Container } from '../container.ts';
import { openPostgres, type Database } from '../db/client.ts';

/** The fault tests' shared set-up (jobs/fault.test.ts, jobs/parsing-fault.test.ts): real processes on PostgreSQL. */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../../..');
const WORKER = path.join(HERE, '../jobs/fault-worker.ts');

/** A migrated database of the test's own on the server at `baseUrl`; `drop` removes it (close the container first). */
export async function createFaultDatabase(baseUrl: string): Promise<{
  database: Database;
  url: string;
  drop: () => Promise<void>;
}> {
  const admin = await openPostgres(baseUrl, { max: 1 });
  const name = `fd_test_${crypto.randomBytes(6).toString('hex')}`;
  await admin.exec(`CREATE DATABASE ${name}`);
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  const database = await openPostgres(u.toString(), { max: 5 });
  await database.migrate();
  return {
    database,
    url: u.toString(),
    drop: async () => {
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.close();
    },
  };
}

/**
 * Worker or API processes (jobs/fault-worker.ts) on the test's database, each started once it says "ready"
 * (within 60 s), to be killed with SIGKILL; `killAll` ends those still running.
 */
export function faultProcesses(o: {
  dbUrl: () => string;
  dataDir: string;
  appKey: string;
  /** A function when it names what starts later (a simulator's address). */
  env?: Record<string, string> | (() => Record<string, string>);
}) {
  const children = new Set<ChildProcess>();
  const start = async (mode: 'worker' | 'api') => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, mode], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: o.dbUrl(),
        DATA_DIR: path.join(o.dataDir, `${mode}-${children.size}`),
        APP_SECRET_KEY: o.appKey,
        LOG_LEVEL: 'silent',
        ...(typeof o.env === 'function' ? o.env() : o.env),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.on('exit', () => children.delete(child));
    let err = '';
    child.stderr!.on('data', (d) => (err = (err + String(d)).slice(-4000)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${mode} did not start within 60 s: ${err}`)), 60_000);
      child.stdout!.on('data', (d) => {
        if (String(d).includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${mode} exited with ${code}: ${err}`));
      });
    });
    return child;
  };
  const kill9 = async (child: ChildProcess) => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    start,
    kill9,
    killAll() {
      for (const ch of children) ch.kill('SIGKILL');
    },
  };
}

/**
 * This process's container on the test's database: it only queues and watches (no workers), and pg-boss checks
 * expiries every second. `env` must carry what the workers also get when it changes a job's expiry (pg-boss takes
 * a job's expiry from the process that sends it).
 */
export async function startWatcher(o: {
  database: Database;
  dbUrl: string;
  dataDir: string;
  appKey: string;
  env?: Record<string, string>;
  extraJobs?: NonNullable<Parameters<typeof createContainer>[1]>['extraJobs'];
}): Promise<Container> {
  const env = { ...process.env, DATABASE_URL: o.dbUrl, DATA_DIR: o.dataDir, APP_SECRET_KEY: o.appKey, ...o.env };
  const config = { ...loadConfig(env, { dotenv: false }), JOB_WORKERS: false };
  const c = await createContainer(config, {
    database: o.database,
    ...(o.extraJobs ? { extraJobs: o.extraJobs } : {}),
    jobOptions: { workers: false, maintenanceIntervalSeconds: 1, expireGraceSeconds: 1 },
  });
  await c.startJobs({ periodic: false });
  return c;
}
