import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedSite, startSiteServer, type SiteServer } from '@fleetdesk/simulators/site/index.ts';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import type { ParsingProgress } from '@fleetdesk/contract';
import { realPostgresUrl } from '../test/real-postgres.ts';
import type { Database } from '../db/client.ts';
import { createFaultDatabase, faultProcesses, startWatcher } from '../test/fault-processes.ts';
import type { Container } from '../container.ts';
import { systemActor } from '../http/context.ts';
import { generateKeyPair } from '../files/ssh/index.ts';
import { PARSING_MARKER } from './kinds/parsing.ts';

/**
 * Parsing under a real crash: the worker process running a parse is killed with SIGKILL in the middle; once the
 * job's (short, for the test) timeout passes, another worker takes it back, keeps the files the first one wrote and
 * finishes with the same files as a clean parse. PostgreSQL only, like jobs/fault.test.ts (same rules for CI).
 */
const BASE_URL = realPostgresUrl('jobs/parsing-fault.test.ts', 'the kill test needs');

const APP_KEY = crypto.randomBytes(32).toString('hex');
// Short enough that the killed worker's job comes back within the test.
const TIMEOUT_MINUTES = '0.25';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), fs.readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

describe.skipIf(!BASE_URL)('parsing killed mid-way, with real processes (PostgreSQL)', () => {
  let database: Database;
  let c: Container;
  let dbUrl: string;
  let drop: (() => Promise<void>) | undefined;
  let host: SshHost;
  let site: SiteServer;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-parse-fault-'));
  const key = generateKeyPair('ed25519');
  const actor = systemActor('parsing-fault-test');

  const processes = faultProcesses({
    dbUrl: () => dbUrl,
    dataDir,
    appKey: APP_KEY,
    env: { PARSER_CONCURRENCY: '4', PARSER_JOB_TIMEOUT_MINUTES: TIMEOUT_MINUTES },
  });
  const spawnWorker = () => processes.start('worker');
  const kill9 = processes.kill9;

  beforeAll(async () => {
    ({ database, url: dbUrl, drop } = await createFaultDatabase(BASE_URL!));
    [host, site] = await Promise.all([
      startSshHost({ authorizedKeys: [key.publicLine] }),
      // 20 pages, 200 files, each answer 30 ms late.
      startSiteServer({ routes: generatedSite(20, 3), delayMs: 30 }),
    ]);
    fs.mkdirSync(path.join(host.rootDir, 'www'));
    // The timeout must match the workers'.
    c = await startWatcher({
      database,
      dbUrl,
      dataDir,
      appKey: APP_KEY,
      env: { PARSER_JOB_TIMEOUT_MINUTES: TIMEOUT_MINUTES },
    });
  }, 120_000);

  afterAll(async () => {
    processes.killAll();
    await c?.close().catch(() => undefined);
    await Promise.all([host?.close(), site?.close()]);
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const domainOnHost = async (serverId: string, name: string) => {
    const d = await c.services.domains.create(
      { domainName: name, status: 'active', serverId, parserEnabled: true, parserURL: `${site.url}/` },
      actor,
    );
    fs.mkdirSync(path.join(host.rootDir, 'www', name));
    return { id: d._id, dir: path.join(host.rootDir, 'www', name) };
  };
  const progress = async (id: string) =>
    (await c.repos.domains.findRow(id))?.parsingProgress as (ParsingProgress & { since?: number }) | null;

  it('a worker killed with SIGKILL mid-parse: the job comes back, keeps what was written, same files', async () => {
    const server = await c.services.servers.create(
      { IPAddress: '127.0.0.1', sshPort: host.port, domainsPath: '/www', domainsLimitQty: 0 },
      actor,
    );
    await c.services.servers.saveKey(server._id, key.privateKey, actor);
    const killed = await domainOnHost(server._id, 'killed.example');
    const clean = await domainOnHost(server._id, 'clean.example');

    const a = await spawnWorker();
    const job = await c.services.parsing.start(killed.id, {}, actor);
    let p: Awaited<ReturnType<typeof progress>> = null;
    for (let i = 0; i < 400; i++) {
      p = await progress(killed.id);
      if (p?.jobId === job._id && p.assets >= 40) break;
      await sleep(25);
    }
    expect(p?.assets).toBeGreaterThanOrEqual(40);
    await kill9(a);
    expect((await c.repos.jobs.find(job._id))!.state).toBe('running');
    const partial = tree(killed.dir);
    expect(partial.has(PARSING_MARKER)).toBe(true);
    const tempFiles = [...partial.keys()].filter((f) => f.endsWith('.fdtmp'));
    expect(partial.size).toBeLessThan(201);
    const hitsAtKill = new Map(site.hits);

    const b = await spawnWorker();
    const done = await c.jobEngine.waitFor(job._id, 90_000);
    expect(done.state, JSON.stringify(done)).toBe('completed');
    expect(done.attempts).toBe(2);
    // Temp files of the writes the kill interrupted are gone too.
    for (const f of tempFiles) expect(fs.existsSync(path.join(killed.dir, f)), f).toBe(false);
    const after = (await progress(killed.id))!;
    expect(after.state).toBe('completed');
    expect(after.skipped).toBeGreaterThan(0);
    // Images the killed worker wrote were not fetched again.
    const keptImages = [...partial.keys()].filter((f) => f.endsWith('.png'));
    expect(keptImages.length).toBeGreaterThan(0);
    for (const f of keptImages) expect(site.hits.get(`/${f}`), f).toBe(hitsAtKill.get(`/${f}`));

    // The same parse without a kill gives the same files.
    const cleanJob = await c.services.parsing.start(clean.id, {}, actor);
    expect((await c.jobEngine.waitFor(cleanJob._id, 60_000)).state).toBe('completed');
    const expected = tree(clean.dir);
    const got = tree(killed.dir);
    expect(expected.size).toBe(200);
    expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [f, body] of expected) expect(got.get(f)?.equals(body), f).toBe(true);
    await kill9(b);
  }, 180_000);
});

if (!BASE_URL) {
  describe('parsing killed mid-way (skipped on PGlite)', () => {
    it.skip('needs PostgreSQL: PGlite lives in one process, so there is no worker to kill', () => {});
  });
}
