import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Launch } from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startDirectAdminSim, type DirectAdminSim } from '@fleetdesk/simulators/directadmin/index.ts';
import { startNamecheapSim, type NamecheapSim } from '@fleetdesk/simulators/namecheap/index.ts';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import type { Container } from '../../container.ts';
import type { Database } from '../../db/client.ts';
import { generateKeyPair } from '../../files/ssh/index.ts';
import { systemActor } from '../../http/context.ts';
import { createFaultDatabase, faultProcesses, startWatcher } from '../../test/fault-processes.ts';
import { realPostgresUrl } from '../../test/real-postgres.ts';
import { REGISTRANT } from '../../test/fixtures.ts';

/**
 * A launch whose worker is killed with SIGKILL while a stage waits: another worker takes the job back and the
 * launch ends, every stage's work done once at the providers. PostgreSQL only (like jobs/fault.test.ts).
 */
const BASE_URL = realPostgresUrl('modules/launches/launches-fault.test.ts', 'the launch fault test needs');
const APP_KEY = crypto.randomBytes(32).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!BASE_URL)('a launch under a killed worker (PostgreSQL, real processes)', () => {
  let database: Database;
  let c: Container;
  let drop: (() => Promise<void>) | undefined;
  let dbUrl: string;
  let cf: CloudflareSim;
  let nc: NamecheapSim;
  let da: DirectAdminSim;
  let host: SshHost;
  const key = generateKeyPair('ed25519');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-launch-fault-'));
  const env = () => ({
    CLOUDFLARE_API_URL: cf.url,
    NAMECHEAP_CLIENT_IP: '198.51.100.7',
    NAMECHEAP_CALLS_PER_MINUTE: '10000',
    DIRECTADMIN_TIMEOUT_SECONDS: '3',
    LAUNCH_WAIT_FIRST_SECONDS: '0.2',
    LAUNCH_WAIT_MAX_SECONDS: '0.5',
    JOB_HEARTBEAT_SECONDS: '1',
    JOB_TAKEOVER_SECONDS: '3',
  });

  const procs = faultProcesses({ dbUrl: () => dbUrl, dataDir, appKey: APP_KEY, env });
  const spawnWorker = () => procs.start('worker');

  beforeAll(async () => {
    [cf, host] = await Promise.all([startCloudflareSim(), startSshHost({ authorizedKeys: [key.publicLine] })]);
    fs.mkdirSync(path.join(host.rootDir, 'www'));
    nc = await startNamecheapSim({ rateLimit: false, whitelist: ['198.51.100.7'] });
    da = await startDirectAdminSim({
      users: [
        { username: 'admin', password: 'da-admin-pa55word', level: 'admin' },
        { username: 'web', password: 'web-pa55word', domains: [] },
      ],
    });
    const db = await createFaultDatabase(BASE_URL!);
    ({ database, drop } = db);
    dbUrl = db.url;
    // This process only creates and watches: no workers here.
    c = await startWatcher({ database, dbUrl, dataDir, appKey: APP_KEY, env: env() });
  }, 120_000);

  afterAll(async () => {
    procs.killAll();
    await c?.close().catch(() => undefined);
    await drop?.();
    await Promise.all([cf?.close(), nc?.close(), da?.close(), host?.close()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL while the zone stage waits: another worker finishes it, each stage done once', async () => {
    const actor = systemActor('test');
    const s = c.services;
    const server = await s.servers.create(
      {
        IPAddress: '127.0.0.1',
        email: 'da@example.com',
        sshPort: host.port,
        domainsPath: '/www',
        domainsLimitQty: 10,
        directAdminUri: da.url,
        directAdminUsername: 'admin|web',
        directAdminPassword: 'da-admin-pa55word',
      } as never,
      actor,
    );
    await s.servers.saveKey(server._id, key.privateKey, actor);
    cf.addAccount({ email: 'ops@example.com', token: 'fault-token-0123456789abcdef' });
    const cloud = await s.clouds.create(
      { email: 'ops@example.com', token: 'fault-token-0123456789abcdef' } as never,
      actor,
    );
    nc.addAccount({ apiUser: 'faultuser', apiKey: 'fault-nc-key-0123456789', balance: 100 });
    const reg = await s.domainRegistrators.create(
      {
        name: 'Fault Namecheap',
        type: 'namecheap',
        credentials: { endpointUrl: nc.url, apiUsername: 'faultuser', apiKey: 'fault-nc-key-0123456789' },
      } as never,
      actor,
    );
    const contact = await s.domainRegistratorsContacts.create(
      {
        name: 'Registrant',
        ...REGISTRANT,
      } as never,
      actor,
    );
    const name = `fault-${crypto.randomBytes(3).toString('hex')}.com`;
    const made = await s.launches.create(
      {
        domainName: name,
        serverId: server._id,
        cloudId: cloud._id,
        registration: { domainRegistratorId: reg._id, register: true, contactId: contact._id, years: 1 },
        content: { type: 'none' },
        dnsRecords: [{ type: 'A', name: '@', content: '{serverIp}', proxied: true, ttl: 1 }],
        firewallRules: [],
        sslMode: 'strict',
        tls13: true,
        verification: 'DNS',
        confirmCostly: true,
        dryRun: false,
      } as never,
      actor,
    );
    if (!('launch' in made)) throw new Error('no launch');
    const id = made.launch._id;
    const get = () => s.launches.get(id);
    const until = async (ok: (l: Launch) => boolean, ms: number) => {
      const end = Date.now() + ms;
      for (;;) {
        const l = await get();
        if (ok(l)) return l;
        if (Date.now() > end)
          throw new Error(`stuck: ${JSON.stringify(l.stages.map((x) => [x.key, x.state, x.error]))}`);
        await sleep(100);
      }
    };

    const a = await spawnWorker();
    const waiting = await until((l) => l.stages.find((x) => x.key === 'zone-active')!.state === 'waiting', 60_000);
    await procs.kill9(a);
    const zone = [...cf.state.zones.values()].find((z) => z.name === name)!;
    cf.setZoneStatus(zone.id, 'active');

    await spawnWorker();
    const done = await until((l) => ['completed', 'failed'].includes(l.state), 90_000);
    expect(done.state, JSON.stringify(done.stages.map((x) => [x.key, x.state, x.error]))).toBe('completed');
    const attempts = Object.fromEntries(done.stages.map((x) => [x.key, x.attempts]));
    // Stages finished before the kill were not run again; the waiting one ran twice (it was in flight).
    expect(attempts).toMatchObject({ domain: 1, register: 1, zone: 1, 'name-servers': 1, 'zone-active': 2, dns: 1 });
    expect(waiting.stages.find((x) => x.key === 'zone')!.state).toBe('done');
    // Each piece of work exists once at its provider.
    expect([...cf.state.zones.values()].filter((z) => z.name === name)).toHaveLength(1);
    expect([...zone.dnsRecords.values()].filter((r) => r.type === 'A' && r.name === name)).toHaveLength(1);
    expect(da.domainsOf('web').filter((d) => d.name === name)).toHaveLength(1);
    expect(nc.state.accounts.get('faultuser')!.domains.has(name)).toBe(true);
    // The launch's last stage is written by the job's handler; the job's own end, by the worker once the handler
    // returns, a moment later.
    let job = (await c.repos.jobs.find(done.jobId!))!;
    for (const end = Date.now() + 10_000; job.state === 'running' && Date.now() < end; await sleep(100)) {
      job = (await c.repos.jobs.find(done.jobId!))!;
    }
    expect(job.state).toBe('completed');
    expect(job.attempts).toBe(2);
  }, 180_000);
});
