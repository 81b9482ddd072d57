/**
 * The simulators a benchmark asks for, in a process of their own (forked by bench/simulators.ts), so that they run
 * on another core than the API they answer and do not share its event loop.
 *
 * The spec comes as JSON in the first argument. Once every simulator listens, one line of JSON goes to stdout:
 * their URLs and ports. Then it answers the parent's messages (`{ id, op, args }`, see OPS) until `close`.
 * The simulators' code stays in packages/simulators; only the wiring is here.
 */
import { startCloudflareSim, type CloudflareSim } from '../packages/simulators/src/cloudflare/index.ts';
import { startDirectAdminSim, type DirectAdminSim } from '../packages/simulators/src/directadmin/index.ts';
import { startNamecheapSim, type NamecheapSim } from '../packages/simulators/src/namecheap/index.ts';
import { startSshHost, type SshHost } from '../packages/simulators/src/ssh-host/index.ts';
import {
  cloudflareTxtLookup,
  startYandexWebmasterSim,
  type YandexWebmasterSim,
} from '../packages/simulators/src/yandex-webmaster/index.ts';
import type { SimulatorsReady, SimulatorsSpec } from './simulators.ts';

if (!process.send) {
  process.stderr.write('bench/simulators-child.ts runs forked by bench/simulators.ts (it needs an IPC channel)\n');
  process.exit(2);
}
const spec = JSON.parse(process.argv[2] ?? '{}') as SimulatorsSpec;

let cf: CloudflareSim | undefined;
let nc: NamecheapSim | undefined;
let da: DirectAdminSim | undefined;
let ssh: SshHost | undefined;
let ya: YandexWebmasterSim | undefined;
let activation: NodeJS.Timeout | undefined;

const need = <T>(sim: T | undefined, name: string): T => {
  if (!sim) throw new Error(`the ${name} simulator was not asked for`);
  return sim;
};

async function closeAll() {
  if (activation) clearInterval(activation);
  await Promise.all([cf?.close(), nc?.close(), da?.close(), ssh?.close(), ya?.close()].filter(Boolean));
}

/** What the parent may ask; every answer is plain JSON. */
const OPS: Record<string, (...args: never[]) => unknown> = {
  'cloudflare.addAccount': (input: Parameters<CloudflareSim['addAccount']>[0]) =>
    need(cf, 'Cloudflare').addAccount(input),
  'cloudflare.usage': () => Object.fromEntries(need(cf, 'Cloudflare').usage()),
  'namecheap.addAccount': (input: Parameters<NamecheapSim['addAccount']>[0]) => need(nc, 'Namecheap').addAccount(input),
  'yandex.addUser': (token: string) => need(ya, 'Yandex Webmaster').addUser(token),
  /** Requests each simulator has answered so far (Yandex's recrawl requests apart). */
  counts: () => ({
    namecheap: nc?.requests.length ?? 0,
    directadmin: da?.requests.length ?? 0,
    yandex: ya?.requests.length ?? 0,
    yandexRecrawls: ya?.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/recrawl/queue')).length ?? 0,
  }),
  /** This process's CPU time so far (µs), for the bench's CPU share. */
  cpu: () => ({ ...process.cpuUsage(), at: performance.now() }),
  close: async () => {
    await closeAll();
    setImmediate(() => process.exit(0));
    return true;
  },
};

process.on('message', (m: { id: number; op: string; args?: unknown[] }) => {
  void (async () => {
    try {
      const fn = OPS[m.op];
      if (!fn) throw new Error(`unknown op ${m.op}`);
      const value = await (fn as (...a: unknown[]) => unknown)(...(m.args ?? []));
      process.send!({ id: m.id, ok: true, value: value ?? null });
    } catch (err) {
      process.send!({ id: m.id, ok: false, error: (err as Error).message });
    }
  })();
});
// The parent gone (killed, crashed): do not linger with open ports.
process.on('disconnect', () => {
  void closeAll().finally(() => process.exit(0));
});

async function main() {
  if (spec.cloudflare) cf = await startCloudflareSim(spec.cloudflare);
  if (spec.namecheap) nc = await startNamecheapSim(spec.namecheap);
  if (spec.directadmin) da = await startDirectAdminSim(spec.directadmin);
  if (spec.sshHost) ssh = await startSshHost(spec.sshHost);
  if (spec.yandex) {
    const { txtFromCloudflare, ...opts } = spec.yandex;
    ya = await startYandexWebmasterSim({
      ...opts,
      ...(txtFromCloudflare ? { dnsTxtLookup: cloudflareTxtLookup(need(cf, 'Cloudflare')) } : {}),
    });
  }
  if (spec.activateZonesOnNameServers) {
    const cfs = need(cf, 'Cloudflare');
    const ncs = need(nc, 'Namecheap');
    // Cloudflare activates a zone once the registrar points at it: a look every second stands in for that.
    activation = setInterval(() => {
      for (const zone of cfs.state.zones.values()) {
        if (zone.status !== 'pending') continue;
        const wanted = cfs.state.accounts.get(zone.accountId)?.nameServers;
        const reg = [...ncs.state.accounts.values()].map((a) => a.domains.get(zone.name)).find(Boolean);
        if (wanted && reg && [...reg.nameServers].sort().join() === [...wanted].sort().join())
          cfs.setZoneStatus(zone.id, 'active');
      }
    }, 1000);
  }
  const ready: SimulatorsReady = {
    pid: process.pid,
    cloudflare: cf?.url,
    namecheap: nc?.url,
    directadmin: da?.url,
    yandex: ya?.url,
    sshPort: ssh?.port,
    sshRootDir: ssh?.rootDir,
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

main().catch((err) => {
  process.stderr.write(`simulators: ${(err as Error).stack ?? err}\n`);
  void closeAll().finally(() => process.exit(1));
});
