import type { CloudflareSim } from './server.ts';

export interface CloudflareDemoSeed {
  accountId: string;
  zones: { zoneId: string; name: string; nameServers: string[] }[];
}

/**
 * Demo mode: one account reachable with the given credentials, three zones (two active, one still pending)
 * and a handful of DNS records and rules, so every Cloudflare screen has something to show.
 */
export function seedCloudflareDemo(
  sim: CloudflareSim,
  creds: { email: string; globalAPIKey?: string; token?: string; name?: string },
  zoneNames: [string, string, string] = ['fleetdesk-demo.com', 'fleetdesk-demo.net', 'fleetdesk-demo.org'],
): CloudflareDemoSeed {
  const { accountId } = sim.addAccount({ ...creds, name: creds.name ?? 'Fleetdesk Demo' });
  const [first, second, third] = zoneNames;
  const zones: CloudflareDemoSeed['zones'] = [];

  const a = sim.addZone(accountId, first, { status: 'active', ssl: 'full', tls13: 'on' });
  zones.push({ ...a, name: first });
  for (const r of [
    { type: 'A', name: '@', content: '203.0.113.10', proxied: true, ttl: 1 },
    { type: 'CNAME', name: 'www', content: first, proxied: true, ttl: 1 },
    { type: 'MX', name: '@', content: `mail.${first}`, priority: 10, ttl: 3600 },
    { type: 'A', name: 'mail', content: '203.0.113.25', ttl: 3600 },
    { type: 'TXT', name: '@', content: 'v=spf1 mx -all', ttl: 3600 },
  ]) {
    sim.addDnsRecord(a.zoneId, r);
  }

  const b = sim.addZone(accountId, second, { status: 'active', ssl: 'strict', tls13: 'on' });
  zones.push({ ...b, name: second });
  for (const r of [
    { type: 'A', name: '@', content: '198.51.100.7', proxied: true, ttl: 1 },
    { type: 'AAAA', name: '@', content: '2001:db8::7', proxied: true, ttl: 1 },
    { type: 'CNAME', name: 'www', content: second, proxied: true, ttl: 1 },
    { type: 'TXT', name: '_dmarc', content: 'v=DMARC1; p=none', ttl: 3600 },
  ]) {
    sim.addDnsRecord(b.zoneId, r);
  }
  // Seeded through the state so demo data is there without a request; PUT semantics are the same.
  const zoneB = sim.state.zones.get(b.zoneId);
  if (zoneB) {
    const now = new Date().toISOString();
    zoneB.rulesets.set('http_request_firewall_custom', {
      id: 'a1f0c3d2e4b5a6978877665544332211',
      name: 'default',
      description: '',
      phase: 'http_request_firewall_custom',
      version: 1,
      lastUpdated: now,
      rules: [
        {
          id: 'b2e1d4c3f5a6b7c8d9e0f1a2b3c4d5e6',
          ref: 'b2e1d4c3f5a6b7c8d9e0f1a2b3c4d5e6',
          version: '1',
          lastUpdated: now,
          action: 'managed_challenge',
          expression: '(http.request.uri.path contains "/wp-login.php")',
          description: 'Challenge WordPress logins',
          enabled: true,
        },
      ],
    });
  }

  const c = sim.addZone(accountId, third, { status: 'pending' });
  zones.push({ ...c, name: third });
  sim.addDnsRecord(c.zoneId, { type: 'A', name: '@', content: '192.0.2.44', proxied: false, ttl: 1 });

  return { accountId, zones };
}
