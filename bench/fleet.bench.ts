/**
 * Fleet operations against Cloudflare's request budget, on a compressed clock.
 *
 *   npm run bench:fleet                          1,000 domains, 4 accounts, 120 requests per 10 s per account
 *   npm run bench:fleet -- --domains 400 --accounts 2 --requests 60 --window 5
 *   npm run bench:fleet -- --reserve 0.05      leave operators 5 % of each account's budget instead of 10 %
 *   npm run bench:fleet -- --domains 10000 --unlimited   a budget no plan reaches (issue 48: our own cost per domain)
 *   npm run bench:fleet -- --actions dns,status --plan-only   only these actions (dns, ssl, status), only planned
 *   npm run bench:fleet -- --actions dns --revert   each run then reverted: the revert planned and run (issue 44)
 *
 * The Cloudflare simulator enforces each account's budget (a sliding window) and answers 429 past it, as
 * Cloudflare does; the console is told the same budget. The bench seeds the domains with zones (and an apex A
 * record each), then plans and runs a DNS change (the apex A record to a new address) and an SSL change over all
 * of them through the fleet service and its jobs, and prints wall time, the share of each account's budget used
 * (requests sent / what the window allowed over the phase), 429s met and requests per domain. PGlite unless
 * DATABASE_URL is set (then a scratch database on that server, dropped at the end). It never asserts a time.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startCloudflareSim } from '../packages/simulators/src/cloudflare/index.ts';
import type { FleetPlanInput } from '../packages/contract/src/index.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openPglite, openPostgres } from '../apps/api/src/db/client.ts';
import { createContainer } from '../apps/api/src/container.ts';
import { systemActor } from '../apps/api/src/http/context.ts';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const DOMAINS = arg('domains', 1000);
/** A budget no run reaches (the largest the settings take, over a 1 s window): what planning costs us alone. */
const UNLIMITED = args.includes('--unlimited');
const ACCOUNTS = arg('accounts', 4);
const REQUESTS = UNLIMITED ? 100_000 : arg('requests', 120);
const WINDOW_S = UNLIMITED ? 1 : arg('window', 10);
/** FLEET_ACCOUNT_CONCURRENCY; the product's default when not given. */
const CONCURRENCY = args.includes('--concurrency') ? arg('concurrency', 32) : undefined;
/** The share each account keeps for operators' own calls (CLOUDFLARE_INTERACTIVE_RESERVE); the product's default. */
const RESERVE = arg('reserve', 0.1);
const PLAN_ONLY = args.includes('--plan-only');
const REVERT = args.includes('--revert');
const ACTIONS = (() => {
  const i = args.indexOf('--actions');
  return i >= 0 && args[i + 1] ? args[i + 1]!.split(',') : ['dns', 'ssl'];
})();
const log = (s: string) => process.stdout.write(`${s}\n`);
const pad = (s: string | number, n: number) => String(s).padStart(n);

async function openBenchDatabase(url: string | undefined) {
  if (!url) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-bench-fleet-'));
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
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-bench-fleet-data-'));
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
      ...(CONCURRENCY ? { FLEET_ACCOUNT_CONCURRENCY: String(CONCURRENCY) } : {}),
      CLOUDFLARE_INTERACTIVE_RESERVE: String(RESERVE),
      JOB_POLL_SECONDS: '0.5',
    },
    { dotenv: false },
  );
  const c = await createContainer(config, { database, jobOptions: { progressThrottleMs: 1000 } });
  const actor = systemActor('bench');
  try {
    // Seeding: accounts and zones at the simulator, clouds and domains in the console; no budget is spent.
    const accounts: { accountId: string; cloudId: string; email: string }[] = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const email = `bench-${a}@example.com`;
      const token = `bench-token-${a}-${crypto.randomBytes(8).toString('hex')}`;
      const { accountId } = sim.addAccount({ email, token });
      const cloud = await c.services.clouds.create({ email, token } as never, actor);
      accounts.push({ accountId, cloudId: cloud._id, email });
    }
    const ids: string[] = [];
    const t0 = performance.now();
    for (let i = 0; i < DOMAINS; i++) {
      const acc = accounts[i % ACCOUNTS]!;
      const name = `fleet-bench-${i}.com`;
      const { zoneId } = sim.addZone(acc.accountId, name, { ssl: 'full' });
      sim.addDnsRecord(zoneId, { type: 'A', name, content: '192.0.2.10', ttl: 1, proxied: true });
      const id = await c.repos.domains.insert({
        domainName: name,
        domainNameUnicode: name,
        status: 'active',
        cloudId: acc.cloudId,
        cloudZoneId: zoneId,
      });
      ids.push(id);
    }
    log(`Fleet benchmark · ${label} · ${DOMAINS} domains with zones across ${ACCOUNTS} accounts`);
    log(
      `Budget: ${REQUESTS} requests per ${WINDOW_S} s per account (Cloudflare's 1,200 per 5 min on a compressed clock); ` +
        `interactive reserve ${Math.round(config.CLOUDFLARE_INTERACTIVE_RESERVE * 100)} %; at most ${config.FLEET_ACCOUNT_CONCURRENCY} domains at once per account`,
    );
    log(
      `Seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s; machine: ${os.cpus().length} CPUs, ` +
        `load average ${os.loadavg()[0]!.toFixed(1)} (shared with other work)\n`,
    );
    await c.startJobs({ periodic: false });

    const waitFor = async (id: string, states: string[]) => {
      for (;;) {
        const p = await c.services.fleet.get(id);
        if (states.includes(p.state)) return p;
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const usage = () => sim.usage();
    const rows: string[][] = [];
    // Each account's count of requests, sampled every 50 ms for the whole bench: a phase's windows may hold the
    // requests of the phase before it (a plan that starts right after a run finds its windows full).
    const samples = new Map<string, { t: number; n: number }[]>();
    const sample = setInterval(() => {
      const t = performance.now();
      for (const [id, u] of usage()) {
        const list = samples.get(id) ?? [];
        list.push({ t, n: u.requests });
        samples.set(id, list);
      }
    }, 50);
    const phase = async (name: string, run: () => Promise<unknown>) => {
      const before = usage();
      const start = performance.now();
      await run();
      const end = performance.now();
      const seconds = (performance.now() - start) / 1000;
      const after = usage();
      const allowed = REQUESTS * (seconds / WINDOW_S);
      let sent = 0;
      let limited = 0;
      const shares: string[] = [];
      const laneShares: string[] = [];
      const heldShares: string[] = [];
      for (const a of accounts) {
        const b = before.get(a.accountId) ?? { requests: 0, rateLimited: 0 };
        const n = after.get(a.accountId) ?? { requests: 0, rateLimited: 0 };
        const reqs = n.requests - b.requests;
        sent += reqs;
        limited += n.rateLimited - b.rateLimited;
        shares.push(`${Math.round((reqs / allowed) * 100)}%`);
        const list = samples.get(a.accountId) ?? [];
        let fullest = 0;
        let held = 0;
        let heldN = 0;
        for (let i = 0, j = 0; i < list.length; i++) {
          while (list[j]!.t < list[i]!.t - WINDOW_S * 1000) j++;
          if (list[i]!.t < start || list[i]!.t > end) continue;
          const inWindow = list[i]!.n - list[j]!.n;
          fullest = Math.max(fullest, inWindow);
          held += inWindow;
          heldN++;
        }
        heldShares.push(`${Math.round((held / Math.max(1, heldN) / REQUESTS) * 100)}%`);
        laneShares.push(`${Math.round((fullest / REQUESTS) * 100)}%`);
      }
      rows.push([
        name,
        seconds.toFixed(1),
        shares.join(' '),
        laneShares.join(' '),
        heldShares.join(' '),
        String(limited),
        (sent / DOMAINS).toFixed(2),
        String(sent),
      ]);
    };
    const known: Record<string, [string, FleetPlanInput['action']]> = {
      dns: ['DNS: apex A → 198.51.100.20', { kind: 'dns_set', type: 'A', name: '@', content: '198.51.100.20' }],
      ssl: ['SSL: → Full strict', { kind: 'ssl', value: 'strict' }],
      status: ['Status → inactive (no provider call)', { kind: 'set_status', status: 'inactive' }],
    };
    const actions = ACTIONS.map(
      (a) =>
        known[a] ??
        (() => {
          throw new Error(`--actions: unknown ${a}`);
        })(),
    );
    let peakRss = process.memoryUsage().rss;
    const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
    for (const [name, action] of actions) {
      let planId = '';
      await phase(`${name} · plan`, async () => {
        const p = await c.services.fleet.create({ selection: { ids }, action }, actor);
        planId = p._id;
        const planned = await waitFor(planId, ['planned', 'failed']);
        if (planned.counts.change !== DOMAINS) {
          const refused = await c.services.fleet.items(planId, { page: 1, search: '', outcome: 'refused' });
          const why = [...new Set(refused.items.map((i) => i.reason))].join(' | ');
          log(`  note: ${planned.counts.change} of ${DOMAINS} to change; refused: ${why}`);
        }
      });
      if (PLAN_ONLY) continue;
      await phase(`${name} · run`, async () => {
        await c.services.fleet.run(planId, actor);
        const done = await waitFor(planId, ['completed', 'failed', 'cancelled']);
        if (done.run.failed) {
          const failed = await c.services.fleet.items(planId, { page: 1, search: '', status: 'failed' });
          log(`  note: ${done.run.failed} failed: ${[...new Set(failed.items.map((i) => i.error))].join(' | ')}`);
        }
      });
      if (!REVERT) continue;
      // Undo (issue 44): the run's revert, planned from what each step recorded, then run under the same budget.
      let revertId = '';
      await phase(`${name} · revert plan`, async () => {
        revertId = (await c.services.fleet.revert({ planId }, actor))._id;
        const planned = await waitFor(revertId, ['planned', 'failed']);
        if (planned.counts.change !== DOMAINS) log(`  note: revert: ${planned.counts.change} of ${DOMAINS} to change`);
      });
      await phase(`${name} · revert run`, async () => {
        await c.services.fleet.run(revertId, actor);
        const done = await waitFor(revertId, ['completed', 'completed_with_failures', 'failed', 'cancelled']);
        if (done.run.done !== DOMAINS)
          log(`  note: revert: ${done.run.done} of ${DOMAINS} changed (${done.stateText})`);
      });
    }
    clearInterval(rssTimer);
    clearInterval(sample);
    const head = [
      'Phase',
      'Wall s',
      'Budget used per account',
      'Fullest window',
      'Window held',
      '429s',
      'Req/domain',
      'Requests',
    ];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (r: string[]) => r.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : pad(v, widths[i]!))).join('  ');
    log(line(head));
    log(widths.map((w) => '-'.repeat(w)).join('  '));
    for (const r of rows) log(line(r));
    log(
      `\nPeak RSS of this process (the console, its jobs and the simulator): ${Math.round(peakRss / 2 ** 20)} MiB; ` +
        `load average now ${os.loadavg()[0]!.toFixed(1)}`,
    );
    log('\nBudget used: requests an account sent during the phase / what its window allowed over that time.');
    log(
      "Fullest window: the most requests an account sent in any one window of the phase / the window's budget " +
        '(sampled every 50 ms): how full the lane keeps a window while it has work.',
    );
    log(
      'Window held: the mean, over the phase, of the requests in the window just past / the budget; a window still ' +
        "holding the phase before's requests counts, so a phase that starts in a full window is not read as idle.",
    );
    log(
      `The job may use ${Math.round((1 - RESERVE) * 100)} % of each window (the rest is kept for operators), and counts ` +
        `each request ${config.CLOUDFLARE_BUDGET_WINDOW_SECONDS >= 100 ? '1 s' : '250 ms'} longer than the window ` +
        '(the time between sending and Cloudflare receiving), so that is its ceiling.',
    );
  } finally {
    await c.close().catch(() => undefined);
    await drop().catch(() => undefined);
    await sim.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
