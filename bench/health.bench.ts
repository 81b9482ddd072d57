/**
 * Fleet health against the simulators, with each Cloudflare account's budget on a compressed clock.
 *
 *   npm run bench:health                                   10,000 domains, 20 accounts, 120 requests per 10 s each
 *   npm run bench:health -- --domains 2000 --accounts 4 --cycle 10 --cheap 60
 *
 * Seeds the domains (each with a zone, apex and www records at the server, a proxy region and an HTTPS site
 * answering 200), then runs the periodic health job's run every `--cycle` seconds, as the schedule would, until
 * every domain has had its full checks. Prints the time of that whole cycle, the share of each account's budget
 * used, the 429s met, and then the time from one site going down (500) to its domain showing failing, against
 * the cheap checks' interval (`--cheap` seconds). PGlite unless DATABASE_URL is set. It never asserts a time.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { eq, isNull, sql } from 'drizzle-orm';
import { startCloudflareSim } from '../packages/simulators/src/cloudflare/index.ts';
import { generateSelfSignedCert, startForwardProxy } from '../packages/simulators/src/proxy/index.ts';
import { startSiteServer } from '../packages/simulators/src/site/index.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openPglite, openPostgres } from '../apps/api/src/db/client.ts';
import { domainHealth, domains } from '../apps/api/src/db/schema/index.ts';
import { createContainer } from '../apps/api/src/container.ts';
import { systemActor } from '../apps/api/src/http/context.ts';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const DOMAINS = arg('domains', 10_000);
const ACCOUNTS = arg('accounts', 20);
const REQUESTS = arg('requests', 120);
const WINDOW_S = arg('window', 10);
/** Seconds between two runs of the periodic job (HEALTH_CYCLE_MINUTES on the compressed clock). */
const CYCLE_S = arg('cycle', 10);
/** Seconds after which the cheap checks (HTTP, DNS) are due again. */
const CHEAP_S = arg('cheap', 60);
const RESERVE = arg('reserve', 0.1);
const SHARE = arg('share', 0.5);
const SERVER_IP = '192.0.2.10';
const log = (s: string) => process.stdout.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function openBenchDatabase(url: string | undefined) {
  if (!url) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-bench-health-'));
    const database = await openPglite(path.join(dir, 'pgdata'));
    return {
      database,
      label: 'PGlite (embedded)',
      drop: async () => {
        await database.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `fd_bench_${crypto.randomBytes(5).toString('hex')}`;
  const admin = await openPostgres(url, { max: 1 });
  await admin.exec(`CREATE DATABASE ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const database = await openPostgres(u.toString(), { max: 10 });
  return {
    database,
    label: 'PostgreSQL',
    drop: async () => {
      await database.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

async function main() {
  const sim = await startCloudflareSim({ rateLimit: { requests: REQUESTS, windowMs: WINDOW_S * 1000 } });
  const down = new Set<string>();
  const names = new Set<string>();
  const site = await startSiteServer({
    routes: {
      '/': (req) => ({ status: down.has(String(req.headers.host).split(':')[0]!) ? 500 : 200, body: 'ok' }),
    },
    tls: generateSelfSignedCert('Bench CA', { validDays: 90 }),
  });
  const proxy = await startForwardProxy({
    kind: 'http',
    resolveName: (h) => (names.has(h) ? '127.0.0.1' : undefined),
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-bench-health-data-'));
  const { database, label, drop } = await openBenchDatabase(process.env.DATABASE_URL);
  await database.migrate();
  const config = loadConfig(
    {
      ...process.env,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      CLOUDFLARE_API_URL: sim.url,
      CLOUDFLARE_BUDGET_PER_5_MIN: String(REQUESTS),
      CLOUDFLARE_BUDGET_WINDOW_SECONDS: String(WINDOW_S),
      CLOUDFLARE_INTERACTIVE_RESERVE: String(RESERVE),
      HEALTH_BUDGET_SHARE: String(SHARE),
      HEALTH_CYCLE_MINUTES: String(CYCLE_S / 60),
      HEALTH_CHEAP_MINUTES: String(CHEAP_S / 60),
      // Full checks again only after the bench ends: the whole cycle is measured once.
      HEALTH_FULL_HOURS: '24',
      HEALTH_SITE_PORT: String(site.port),
      HEALTH_ACCEPT_UNTRUSTED_CERTS: '1',
      HEALTH_CONCURRENCY: String(arg('concurrency', 8)),
      JOB_WORKERS: '0',
    },
    { dotenv: false },
  );
  const c = await createContainer(config, { database });
  const actor = systemActor('bench');
  try {
    const region = await c.services.regions.create({ name: 'Bench region' }, actor);
    await c.services.proxies.create(
      {
        IPAddress: '127.0.0.1',
        httpPort: proxy.port,
        proxyType: 'http',
        isHttps: false,
        regionId: region._id,
      } as never,
      actor,
    );
    const server = await c.services.servers.create(
      { IPAddress: SERVER_IP, email: 'bench@example.com', domainsLimitQty: DOMAINS * 2 } as never,
      actor,
    );
    await database.exec(
      `update servers set status = 'online', free_space_bytes = 50, total_space_bytes = 100 where id = '${server._id}'`,
    );
    const accounts: { accountId: string; cloudId: string }[] = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const email = `bench-${a}@example.com`;
      const token = `bench-token-${a}-${crypto.randomBytes(8).toString('hex')}`;
      const { accountId } = sim.addAccount({ email, token });
      const cloud = await c.services.clouds.create({ email, token } as never, actor);
      accounts.push({ accountId, cloudId: cloud._id });
    }
    const t0 = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < DOMAINS; i++) {
      const acc = accounts[i % ACCOUNTS]!;
      const name = `health-bench-${i}.com`;
      names.add(name);
      const { zoneId } = sim.addZone(acc.accountId, name, { status: 'active', ssl: 'full' });
      sim.addDnsRecord(zoneId, { type: 'A', name, content: SERVER_IP, ttl: 1, proxied: true });
      sim.addDnsRecord(zoneId, { type: 'A', name: `www.${name}`, content: SERVER_IP, ttl: 1, proxied: true });
      ids.push(
        await c.repos.domains.insert({
          domainName: name,
          domainNameUnicode: name,
          status: 'active',
          cloudId: acc.cloudId,
          cloudZoneId: zoneId,
          serverId: server._id,
          parserProxyRegionId: region._id,
        }),
      );
    }
    log(`Health benchmark · ${label} · ${DOMAINS} domains across ${ACCOUNTS} Cloudflare accounts`);
    log(
      `Budget: ${REQUESTS} requests per ${WINDOW_S} s per account (Cloudflare's 1,200 per 5 min on a compressed clock); ` +
        `operators' reserve ${Math.round(RESERVE * 100)} %, health's share of the rest ${Math.round(SHARE * 100)} %; ` +
        `a run every ${CYCLE_S} s, HTTP and DNS due again after ${CHEAP_S} s`,
    );
    log(
      `Seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s; machine: ${os.cpus().length} CPUs, ` +
        `load average ${os.loadavg()[0]!.toFixed(1)} (shared with other work)\n`,
    );

    const unchecked = async () => {
      const [r] = await c.database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(domains)
        .leftJoin(domainHealth, eq(domainHealth.domainId, domains.id))
        .where(isNull(domainHealth.fullAt));
      return Number(r?.n ?? 0);
    };
    const before = sim.usage();
    const start = performance.now();
    let runs = 0;
    let message = '';
    // The schedule: a run every CYCLE_S seconds (a run that takes longer is followed at once by the next).
    while ((await unchecked()) > 0) {
      const runStart = performance.now();
      const r = await c.services.health.cycle(async () => undefined);
      message = r.message;
      runs++;
      const left = CYCLE_S * 1000 - (performance.now() - runStart);
      if (left > 0 && (await unchecked()) > 0) await sleep(left);
    }
    const cycleS = (performance.now() - start) / 1000;
    const after = sim.usage();
    let limited = 0;
    const shares: number[] = [];
    for (const a of accounts) {
      const b = before.get(a.accountId) ?? { requests: 0, rateLimited: 0 };
      const n = after.get(a.accountId) ?? { requests: 0, rateLimited: 0 };
      limited += n.rateLimited - b.rateLimited;
      shares.push((n.requests - b.requests) / (REQUESTS * (cycleS / WINDOW_S)));
    }
    const pct = (x: number) => `${Math.round(x * 100)} %`;
    log(`Whole cycle (every domain's full checks once): ${cycleS.toFixed(1)} s in ${runs} runs`);
    log(
      `The job reported: "${message}" (hours on the compressed clock: × ${(300 / WINDOW_S).toFixed(0)} for real time)`,
    );
    log(
      `Budget used per account over the cycle: min ${pct(Math.min(...shares))}, max ${pct(Math.max(...shares))} ` +
        `(ceiling: ${pct((1 - RESERVE) * SHARE)} of the window)`,
    );
    log(`429s met: ${limited}`);

    // An outage: one site answers 500 from now on; the periodic runs go on until its domain shows failing.
    const victim = ids[Math.floor(ids.length / 2)]!;
    const victimName = `health-bench-${Math.floor(ids.length / 2)}.com`;
    down.add(victimName);
    const wentDown = performance.now();
    const deadline = wentDown + Math.max(10, CHEAP_S * 4) * 1000;
    let seen: number | null = null;
    while (performance.now() < deadline) {
      const runStart = performance.now();
      await c.services.health.cycle(async () => undefined);
      const [row] = await c.database.db
        .select({ state: domains.healthState })
        .from(domains)
        .where(eq(domains.id, victim));
      if (row?.state === 'failing') {
        seen = (performance.now() - wentDown) / 1000;
        break;
      }
      const left = CYCLE_S * 1000 - (performance.now() - runStart);
      if (left > 0) await sleep(left);
    }
    log(
      seen === null
        ? `Outage not seen within ${Math.max(10, CHEAP_S * 4)} s`
        : `Outage seen after ${seen.toFixed(1)} s (HTTP check interval ${CHEAP_S} s; aim: within ${2 * CHEAP_S} s)`,
    );
  } finally {
    await c.close().catch(() => undefined);
    await drop().catch(() => undefined);
    await Promise.all([sim.close(), site.close(), proxy.close()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
