import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { FLEET_STATE_MESSAGES } from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { createTestApp, type TestApp } from '../../../apps/api/src/test/harness.ts';

// The command-line client end to end (issue 45's "Done when"): the real `fleetdesk` bin run as a child process
// against a server listening on loopback, its Cloudflare a simulator (nothing leaves the machine).
const BIN = fileURLToPath(new URL('../bin/fleetdesk.mjs', import.meta.url));

let t: TestApp;
let sim: CloudflareSim;
let origin: string;
let session: string;
let token: string;
let tokenId: string;
let home: string;
const brandName = `CLI brand ${Math.random().toString(36).slice(2, 8)}`;
const domains: { id: string; name: string; zoneId: string }[] = [];

type Result = { code: number; stdout: string; stderr: string };
/** Runs `fleetdesk …` with its own config folder and no FLEETDESK_* from the test's environment. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  const base = { ...process.env };
  delete base.FLEETDESK_URL;
  delete base.FLEETDESK_TOKEN;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...base, XDG_CONFIG_HOME: home, NO_COLOR: '1', ...env }, cwd: home, timeout: 90_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}
const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: session }, payload });

beforeAll(async () => {
  sim = await startCloudflareSim();
  t = await createTestApp(
    // One domain of the account at a time, so that a Ctrl-C lands mid-run.
    { CLOUDFLARE_API_URL: sim.url, CLOUDFLARE_TIMEOUT_SECONDS: '10', FLEET_ACCOUNT_CONCURRENCY: '1' },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  session = await t.tokenFor(['cnv'], { username: 'cli-operator' });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-cli-e2e-'));

  const email = 'cli-ops@example.com';
  const cfToken = 'cli-e2e-token-0123456789abcdef';
  sim.addAccount({ email, token: cfToken });
  const cloud = (await call('POST', '/api/clouds', { email, token: cfToken })).json().data;
  const brand = (await call('POST', '/api/brands', { name: brandName })).json().data;
  for (const name of ['alpha-cli.com', 'beta-cli.com']) {
    const d = (
      await call('POST', '/api/domains', { domainName: name, status: 'active', cloudId: cloud._id, brandId: brand._id })
    ).json().data;
    const z = await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`);
    expect(z.statusCode, z.body).toBe(200);
    domains.push({ id: d._id, name, zoneId: z.json().data.cloudZoneId });
  }
  sim.addDnsRecord(domains[0]!.zoneId, {
    type: 'A',
    name: 'alpha-cli.com',
    content: '192.0.2.10',
    ttl: 1,
    proxied: true,
  });
  sim.addDnsRecord(domains[1]!.zoneId, {
    type: 'TXT',
    name: 'beta-cli.com',
    content: 'v=spf1 -all',
    ttl: 1,
    proxied: false,
  });

  const created = await call('POST', '/auth/tokens', { name: 'cli e2e', rules: ['cnv'], expiresInDays: 30 });
  expect(created.statusCode, created.body).toBe(200);
  token = created.json().data.token;
  tokenId = created.json().data.apiToken._id;
}, 180_000);
afterAll(async () => {
  await t?.close();
  await sim?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

const zone = (i: number) => sim.state.zones.get(domains[i]!.zoneId)!;

describe('fleetdesk against a server', () => {
  it(
    'login, export, edit, plan (2), refusal past --max-changes, apply, plan again (0), reads, and a revoked token',
    { timeout: 300_000 },
    async () => {
      const login = await cli(['login', '--url', `${origin}/`, '--token', token]);
      expect(login, login.stderr).toMatchObject({ code: 0 });
      expect(login.stderr).toContain(`Logged in to ${origin} as cli-operator`);
      const configFile = path.join(home, 'fleetdesk', 'config.json');
      expect(fs.statSync(configFile).mode & 0o777).toBe(0o600);
      expect(login.stdout + login.stderr).not.toContain(token);

      const who = await cli(['whoami', '--json']);
      expect(who.code, who.stderr).toBe(0);
      expect(JSON.parse(who.stdout)).toMatchObject({ url: origin, user: { username: 'cli-operator' } });

      // Export the brand's domains to a file.
      const exp = await cli(['export', '--brand', brandName, '--output', 'fleet.yaml']);
      expect(exp.code, exp.stderr).toBe(0);
      expect(exp.stderr).toContain('Exported 2 domains to fleet.yaml');
      const file = path.join(home, 'fleet.yaml');
      const doc = YAML.parse(fs.readFileSync(file, 'utf8'));
      expect(doc.domains.map((d: { domain: string }) => d.domain).sort()).toEqual(['alpha-cli.com', 'beta-cli.com']);

      // Planned as exported: nothing to change.
      const unchanged = await cli(['plan', 'fleet.yaml']);
      expect(unchanged.code, unchanged.stdout + unchanged.stderr).toBe(0);

      // Edit: alpha's SSL mode to strict and a www record, beta's TXT replaced.
      const alpha = doc.domains.find((d: { domain: string }) => d.domain === 'alpha-cli.com');
      const beta = doc.domains.find((d: { domain: string }) => d.domain === 'beta-cli.com');
      alpha.ssl = 'strict';
      alpha.dns.push({ type: 'CNAME', name: 'www', content: 'alpha-cli.com', proxied: true });
      beta.dns = beta.dns.map((r: { type: string; content: string }) =>
        r.type === 'TXT' ? { ...r, content: 'v=spf1 include:_spf.example.net -all' } : r,
      );
      fs.writeFileSync(file, YAML.stringify(doc));

      const planned = await cli(['plan', 'fleet.yaml']);
      expect(planned.code, planned.stdout + planned.stderr).toBe(2);
      expect(planned.stdout).toContain('~ alpha-cli.com\n');
      expect(planned.stdout).toContain('    + CNAME www.alpha-cli.com  alpha-cli.com (proxied)');
      expect(planned.stdout).toMatch(/ {4}~ SSL mode {2}\S.* → Full strict/);
      expect(planned.stdout).toContain('    ~ TXT beta-cli.com  v=spf1 -all → v=spf1 include:_spf.example.net -all');
      expect(planned.stdout).toMatch(new RegExp(`In the console: ${origin}/fleet/[0-9a-f-]{36}`));

      // The safety threshold: two domains would change, one is allowed; nothing runs.
      const refused = await cli(['apply', 'fleet.yaml', '--max-changes', '1', '--yes']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`fleetdesk: ${FLEET_STATE_MESSAGES.maxChanges(2, 1)}`);
      expect(zone(0).settings.ssl.value).not.toBe('strict');
      // Without --yes and no terminal, it asks for --yes rather than running.
      const noYes = await cli(['apply', 'fleet.yaml']);
      expect(noYes.code).toBe(1);
      expect(noYes.stderr).toContain('Pass --yes');

      const applied = await cli(['apply', 'fleet.yaml', '--max-changes', '2', '--yes']);
      expect(applied.code, applied.stdout + applied.stderr).toBe(0);
      expect(applied.stderr).toContain('Completed');
      expect(zone(0).settings.ssl.value).toBe('strict');
      const names = (i: number) =>
        [...zone(i).dnsRecords.values()].map((r) => `${r.type} ${r.name} ${r.content}`).sort();
      expect(names(0)).toEqual(['A alpha-cli.com 192.0.2.10', 'CNAME www.alpha-cli.com alpha-cli.com']);
      expect(names(1)).toEqual(['TXT beta-cli.com v=spf1 include:_spf.example.net -all']);

      const again = await cli(['plan', 'fleet.yaml', '--json']);
      expect(again.code, again.stdout + again.stderr).toBe(0);
      const againPlan = JSON.parse(again.stdout);
      expect(againPlan.plan.counts).toMatchObject({ change: 0, same: 2 });

      // The reads: the brand's domains, the plan's job followed to its end, a domain's health.
      const ls = await cli(['domains', 'ls', '--brand', brandName, '--json']);
      expect(ls.code, ls.stderr).toBe(0);
      expect(
        JSON.parse(ls.stdout)
          .items.map((d: { domainName: string }) => d.domainName)
          .sort(),
      ).toEqual(['alpha-cli.com', 'beta-cli.com']);
      const table = await cli(['domains', 'ls', '--brand', brandName]);
      expect(table.stdout.split('\n')[0]).toMatch(/^DOMAIN\s+STATUS\s+BRAND/);
      const jobs = await cli(['jobs', 'ls', '--json']);
      expect(jobs.code, jobs.stderr).toBe(0);
      const watch = await cli(['jobs', 'watch', againPlan.plan.jobId, '--interval', '0.5']);
      expect(watch.code, watch.stderr).toBe(0);
      expect(watch.stderr).toContain('Completed');
      const health = await cli(['health', 'alpha-cli.com', '--json']);
      expect(health.code, health.stderr).toBe(0);
      expect(JSON.parse(health.stdout).domainId).toBe(domains[0]!.id);

      // A file the console cannot fully plan: the unknown name is refused, exit 1.
      fs.writeFileSync(
        path.join(home, 'other.yaml'),
        'version: 1\ndomains:\n  - domain: unknown-cli.example\n    ssl: full\n',
      );
      const other = await cli(['plan', 'other.yaml']);
      expect(other.code).toBe(1);
      expect(other.stdout).toContain(`! unknown-cli.example: ${FLEET_STATE_MESSAGES.notInConsole}`);

      // The token revoked: one clear line, exit 1, the token never printed.
      expect((await call('DELETE', `/auth/tokens/${tokenId}`)).statusCode).toBe(200);
      const revoked = await cli(['whoami']);
      expect(revoked.code).toBe(1);
      expect(revoked.stderr).toBe(
        `fleetdesk: The token was refused by ${origin}: revoked or expired; run fleetdesk login\n`,
      );
      const revokedPlan = await cli(['plan', 'fleet.yaml']);
      expect(revokedPlan.code).toBe(1);
      expect(revokedPlan.stdout + revokedPlan.stderr).not.toContain(token);
    },
  );

  it(
    'Ctrl-C during apply pauses the run and exits once the server says it is paused',
    { timeout: 180_000 },
    async () => {
      const created = await call('POST', '/auth/tokens', { name: 'cli e2e 2', rules: ['cnv'], expiresInDays: 1 });
      expect((await cli(['login', '--url', origin, '--token', created.json().data.token])).code).toBe(0);
      const doc = YAML.parse(fs.readFileSync(path.join(home, 'fleet.yaml'), 'utf8'));
      for (const d of doc.domains)
        d.tls13 = zone(domains.findIndex((x) => x.name === d.domain)).settings.tls_1_3.value === 'on' ? 'off' : 'on';
      fs.writeFileSync(path.join(home, 'pause.yaml'), YAML.stringify(doc));

      // Every Cloudflare call from here on takes 3 s, planning's reads included: the run (a read and a write per
      // domain) cannot end before the interrupt is answered (under load it did, and the client then said
      // "Completed" or met the SIGINT with no handler left).
      sim.fail({ kind: 'slow', delayMs: 3000, count: 200 });
      const base = { ...process.env };
      delete base.FLEETDESK_URL;
      delete base.FLEETDESK_TOKEN;
      const child = spawn(process.execPath, [BIN, 'apply', 'pause.yaml', '--yes'], {
        env: { ...base, XDG_CONFIG_HOME: home },
        cwd: home,
      });
      let stderr = '';
      let stdout = '';
      child.stdout.on('data', (b) => (stdout += String(b)));
      const running = new Promise<string>((resolve) =>
        child.stderr.on('data', (b) => {
          stderr += String(b);
          const m = /Running plan #\d+: \S+\/fleet\/([0-9a-f-]{36})/.exec(stderr);
          if (m) resolve(m[1]!);
        }),
      );
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      const planId = await running;
      child.kill('SIGINT');
      const code = await exited;
      sim.clearFailures();
      expect(code, stdout + stderr).toBe(130);
      expect(stderr).toContain('Pausing…');
      expect(stderr).toMatch(/Paused plan #\d+: .*Resume it in the console: /);
      const p = (await call('GET', `/api/fleet/plans/${planId}`)).json().data;
      expect(p.state).toBe('paused');
    },
  );
});
