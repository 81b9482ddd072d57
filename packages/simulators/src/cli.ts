// npm run sim -- <cloudflare|namecheap|ssh|proxy> [options]: start one simulator alone on loopback, until Ctrl-C.
import { parseArgs } from 'node:util';
import {
  seedCloudflareDemo,
  seedNamecheapDemo,
  startCloudflareSim,
  startForwardProxy,
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
  console.error(
    'Usage: npm run sim -- cloudflare [--port N] [--seed] | namecheap [--port N] [--seed] | ssh [--port N] [--root DIR] [--authorized-key LINE] | proxy [--kind http|socks5] [--username U --password P]',
  );
  process.exit(2);
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
