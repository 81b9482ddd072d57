// npm run sim -- <cloudflare|namecheap|ssh|proxy|directadmin|ispmanager> [options]: start one simulator alone on loopback, until Ctrl-C.
import { parseArgs } from 'node:util';
import {
  seedCloudflareDemo,
  seedNamecheapDemo,
  startCloudflareSim,
  startDirectAdminSim,
  startForwardProxy,
  startIspManagerSim,
  startNamecheapSim,
  startSshHost,
} from './index.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: 'string' },
    seed: { type: 'boolean' },
    kind: { type: 'string' },
    username: { type: 'string' },
    password: { type: 'string' },
    'authorized-key': { type: 'string', multiple: true },
    root: { type: 'string' },
  },
});
const port = values.port ? Number(values.port) : 0;
const which = positionals[0];

async function main() {
  if (which === 'cloudflare') {
    const sim = await startCloudflareSim({ port });
    console.log(`Cloudflare simulator: ${sim.url}`);
    if (values.seed) {
      const seeded = seedCloudflareDemo(sim, {
        email: 'demo@example.com',
        globalAPIKey: 'demo-global-key',
        token: 'demo-token',
      });
      console.log(`Seeded account ${seeded.accountId} (token "demo-token"; or demo@example.com / "demo-global-key")`);
      for (const z of seeded.zones) console.log(`  zone ${z.name} ${z.zoneId}`);
    }
    return;
  }
  if (which === 'namecheap') {
    const sim = await startNamecheapSim({ port });
    console.log(`Namecheap simulator: ${sim.url} (20 calls a minute per API user; any ClientIp)`);
    if (values.seed) {
      const seeded = seedNamecheapDemo(sim, { apiUser: 'fleetdesk-demo', apiKey: 'demo-namecheap-key' });
      console.log(`Seeded API user "fleetdesk-demo" (key "demo-namecheap-key") with ${seeded.domains.length} domains`);
    }
    return;
  }
  if (which === 'ssh') {
    const host = await startSshHost({ port, rootDir: values.root, authorizedKeys: values['authorized-key'] ?? [] });
    console.log(`SSH test host: 127.0.0.1:${host.port}, root ${host.rootDir}, host key ${host.hostKeyFingerprint}`);
    return;
  }
  if (which === 'proxy') {
    const kind = values.kind === 'socks5' ? 'socks5' : 'http';
    const proxy = await startForwardProxy({ kind, username: values.username, password: values.password });
    console.log(`Forward proxy (${kind}): ${proxy.url}`);
    return;
  }
  if (which === 'directadmin') {
    const username = values.username ?? 'admin';
    const password = values.password ?? 'admin-demo';
    const sim = await startDirectAdminSim({
      port,
      users: [
        { username, password, level: 'admin', domains: [] },
        { username: 'web', password: 'web-demo', domains: ['example.com'] },
      ],
    });
    console.log(`DirectAdmin simulator: ${sim.url} (admin ${username} / "${password}"; user web / "web-demo")`);
    return;
  }
  if (which === 'ispmanager') {
    const username = values.username ?? 'root';
    const password = values.password ?? 'root-demo';
    const sim = await startIspManagerSim({
      port,
      users: [{ username, password }],
      sites: values.seed ? [{ name: 'example.com', owner: 'www-root' }] : [],
    });
    console.log(`ISPmanager simulator: ${sim.url}/ispmgr (${username} / "${password}"; self-signed certificate)`);
    return;
  }
  console.error(
    'Usage: npm run sim -- cloudflare [--port N] [--seed] | namecheap [--port N] [--seed] | ssh [--port N] [--root DIR] [--authorized-key LINE] | proxy [--kind http|socks5] [--username U --password P] | directadmin [--port N] [--username U --password P] | ispmanager [--port N] [--seed] [--username U --password P]',
  );
  process.exit(2);
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
