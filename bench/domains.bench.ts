/**
 * Domains at scale, through the real HTTP API.
 *
 *   npm run bench:domains                 100,000 domains (PostgreSQL when DATABASE_URL is set, else PGlite)
 *   npm run bench:domains -- --million    1,000,000 domains
 *   npm run bench:domains -- --requests 300 --concurrency 8
 *   npm run bench:domains -- --keep       keep the scratch database (PostgreSQL) for a look with EXPLAIN
 *   npm run bench:domains -- --burst      only the burst: 100 connections of mixed reads and writes for 30 s
 *   npm run bench:domains -- --burst --connections 30 --seconds 5 --domains 10000   (a small one)
 *   npm run bench:domains -- --burst --pglite-thread main   PGlite on the API's thread (default: its own, decision 052)
 *
 * On PostgreSQL it creates a scratch database on that server and drops it at the end. It seeds with bulk
 * SQL (generate_series), starts the app (buildApp + listen on 127.0.0.1, a random port), signs in, and then
 * measures page 1, page 4,000, a three-letter substring search, each filter of the list, the dashboard, the global
 * search and the full CSV export. Latency (p50, p99)
 * comes from sequential requests; throughput from the same number of requests at the given concurrency.
 * The burst (issue 32): all connections at once, each a loop of requests, each request one of page 1, a deep page,
 * a one- and a three-letter search, two filters, or (one in five) a domain edit (PATCH status). It prints p50,
 * p99, max, how many answers took over 1 s and 2 s, when the slowest was sent, and each kind's figures; rate
 * limits are set out of reach, as for one busy operator's tools (their table is still written).
 * It prints figures and never asserts a time.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../apps/api/src/config.ts';
import { openPglite, openPostgres, type Database } from '../apps/api/src/db/client.ts';
import { createContainer } from '../apps/api/src/container.ts';
import { buildApp } from '../apps/api/src/app.ts';
import { hashPassword } from '../apps/api/src/lib/passwords.ts';
import { seedDomains } from './seed.ts';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const TOTAL = args.includes('--million') ? 1_000_000 : arg('domains', 100_000);
const REQUESTS = arg('requests', 300);
const CONCURRENCY = arg('concurrency', 8);
const EXPORT_RUNS = arg('export-runs', 3);
const WARMUP = 20;
const KEEP = args.includes('--keep');
const BURST = args.includes('--burst');
const BURST_CONNECTIONS = arg('connections', 100);
const BURST_SECONDS = arg('seconds', 30);
const threadAt = args.indexOf('--pglite-thread');
const PGLITE_THREAD = threadAt >= 0 && args[threadAt + 1] === 'main' ? 'main' : 'worker';
/** Three-letter substrings of the seeded names (hex from md5), rotated so no single plan is cached. */
const SEARCHES = ['abc', 'e4f', '7d2', 'c0f', '9ab', 'f31'];

const fmt = (n: number, digits = 1) => n.toFixed(digits);
const log = (s: string) => process.stdout.write(`${s}\n`);

async function openBenchDatabase(url: string | undefined) {
  if (!url) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-bench-'));
    const database = await openPglite(path.join(dir, 'pgdata'), { thread: PGLITE_THREAD });
    return {
      database,
      label: `PGlite (embedded, ${PGLITE_THREAD === 'worker' ? 'in a worker thread' : "on the API's thread"})`,
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
  const version = await database.db.execute(sql`select version() as v`);
  const v = (version as unknown as { rows: { v: string }[] }).rows[0]?.v.split(' on ')[0] ?? 'PostgreSQL';
  return {
    database,
    label: `${v} (scratch database ${name}${KEEP ? '' : ', dropped afterwards'})`,
    drop: async () => {
      await database.close();
      if (KEEP) log(`Kept the scratch database ${name}; drop it with: DROP DATABASE ${name};`);
      else await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

async function signIn(base: string, c: Awaited<ReturnType<typeof createContainer>>) {
  const password = crypto.randomBytes(12).toString('hex');
  const role = await c.repos.roles.insert({ name: 'Bench', rules: ['cnv:domains', 'cnv:regions'] });
  const user = await c.repos.users.insert({
    username: 'bench',
    name: 'Bench',
    email: 'bench@example.test',
    passwordHash: await hashPassword(password),
  });
  await c.repos.users.setRoles(user.id, [role.id]);
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password }),
  });
  if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return res.headers.get('authorization')!;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

type Row = { name: string; p50: number; p99: number; max: number; rps: number; note: string };

/** A list answer's note; other answers (dashboard, search) pass their own. */
const listNote = (data: unknown) => {
  const d = data as { items: unknown[]; itemsCount: number };
  return `${d.items.length} items of ${d.itemsCount.toLocaleString('en')}`;
};

async function measureList(
  name: string,
  urls: (i: number) => string,
  headers: Record<string, string>,
  noteOf: (data: unknown) => string = listNote,
): Promise<Row> {
  let note = '';
  const once = async (i: number) => {
    const res = await fetch(urls(i), { headers });
    const body = (await res.json()) as { data: unknown };
    if (!res.ok) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
    note = noteOf(body.data);
  };
  for (let i = 0; i < WARMUP; i++) await once(i);
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    await once(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) await once(next++);
    }),
  );
  const rps = REQUESTS / ((performance.now() - t0) / 1000);
  return {
    name,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: times[times.length - 1]!,
    rps,
    note,
  };
}

async function measureExport(url: string, headers: Record<string, string>) {
  const runs: { ms: number; rows: number; bytes: number; peakRss: number; baseRss: number }[] = [];
  for (let run = 0; run < EXPORT_RUNS; run++) {
    (globalThis as { gc?: () => void }).gc?.();
    const baseRss = process.memoryUsage().rss;
    let peakRss = baseRss;
    const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 10);
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    if (!res.ok || !res.body) throw new Error(`export: ${res.status}`);
    let bytes = 0;
    let newlines = 0;
    // Counted chunk by chunk, never held whole: the figure is the server's memory, not the client's.
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) newlines++;
    }
    const ms = performance.now() - t0;
    clearInterval(timer);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    runs.push({ ms, rows: newlines - 1, bytes, peakRss, baseRss });
  }
  return runs;
}

/**
 * Many connections at once, mixed reads and writes, open for `seconds`: the latency of every answer, by kind.
 * Each connection is a loop sending its next request when the last one is answered (as autocannon does), over
 * its own keep-alive socket, from a worker thread (bench/burst-client.mjs): a client on the API's own thread
 * would wait whenever PGlite runs a statement there, and count that wait as the API's.
 */
async function burst(base: string, headers: Record<string, string>, database: Database) {
  const ids = (
    (await database.db.execute(sql`select id, status from domains order by domain_no limit 2000`)) as unknown as {
      rows: { id: string; status: 'active' | 'inactive' }[];
    }
  ).rows;
  const reads = ['?page=1', '?page=37', '?search=a', '?search=e4f', '?status=inactive', '?hasZone=true'];
  // How long the API's event loop was kept from running (with --pglite-thread main, PGlite runs each statement on it).
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  // How busy the API's thread was, and the process's CPU time (every thread: the API, PGlite's, the client's).
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const worker = new Worker(new URL('./burst-client.mjs', import.meta.url), {
    workerData: { base, headers, ids, seconds: BURST_SECONDS, connections: BURST_CONNECTIONS, reads },
  });
  const result = await new Promise<{
    times: Record<string, number[]>;
    statuses: Record<string, number>;
    errors: number;
    slowest: { ms: number; sentAt: number; kind: string };
  }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  lag.disable();
  const elu = performance.eventLoopUtilization(elu0);
  const cpu = process.cpuUsage(cpu0);
  const { times, statuses, errors, slowest } = result;
  const all = Object.values(times)
    .flat()
    .sort((a, b) => a - b);
  const over = (ms: number) => all.filter((t) => t > ms).length;
  log(
    `Burst: ${BURST_CONNECTIONS} connections for ${BURST_SECONDS} s, 1 in 5 a domain edit, the rest six list reads ` +
      `(load ${os.loadavg()[0]!.toFixed(1)} at the end)`,
  );
  log(
    `  ${all.length} answers (${Object.entries(statuses)
      .map(([c, k]) => `${c}: ${k}`)
      .join(', ')}; errors ${errors}), ${fmt(all.length / BURST_SECONDS)} a second`,
  );
  log(
    `  p50 ${fmt(percentile(all, 50))} ms, p99 ${fmt(percentile(all, 99))} ms, max ${fmt(all.at(-1) ?? 0)} ms; ` +
      `over 1 s: ${over(1000)}, over 2 s: ${over(2000)}; the slowest (${slowest.kind}) was sent ` +
      `${(slowest.sentAt / 1000).toFixed(1)} s in`,
  );
  log(
    `  the API's event loop delay: p50 ${fmt(lag.percentile(50) / 1e6)} ms, p99 ${fmt(lag.percentile(99) / 1e6)} ms, ` +
      `max ${fmt(lag.max / 1e6)} ms; the API's thread busy ${fmt(elu.utilization * 100, 0)}% of the run`,
  );
  log(
    `  CPU time of the process (all threads, the client's included): ${fmt((cpu.user + cpu.system) / 1e6)} s, ` +
      `${fmt((cpu.user + cpu.system) / 1e3 / Math.max(1, all.length))} ms an answer`,
  );
  for (const [kind, ts] of Object.entries(times)) {
    const sorted = ts.sort((a, b) => a - b);
    if (!sorted.length) continue;
    log(
      `    ${kind.padEnd(22)} ${String(sorted.length).padStart(6)} answers, p50 ${fmt(percentile(sorted, 50))} ms, ` +
        `p99 ${fmt(percentile(sorted, 99))} ms, max ${fmt(sorted.at(-1)!)} ms`,
    );
  }
}

async function main() {
  const config = loadConfig(
    {
      ...process.env,
      LOG_LEVEL: 'silent',
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'fd-bench-data-')),
      ...(BURST ? { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_ADDRESS_PER_MINUTE: '1000000' } : {}),
    },
    { dotenv: false },
  );
  const started = performance.now();
  const { database, label, drop } = await openBenchDatabase(config.DATABASE_URL);
  try {
    log(`Domains benchmark: ${TOTAL.toLocaleString('en')} domains on ${label}`);
    log(`Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${os.platform()}`);
    await database.migrate();
    const t0 = performance.now();
    await seedDomains(database, TOTAL, log);
    log(`  seed and vacuum analyze: ${fmt((performance.now() - t0) / 1000)} s`);

    const c = await createContainer(config, { database });
    const app = await buildApp(c, { logger: false, webDist: null });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const headers = { authorization: await signIn(base, c) };
    if (BURST) {
      await burst(base, headers, database);
      await app.close();
      return;
    }

    const lastPage = Math.ceil(TOTAL / 20);
    const deep = Math.min(4000, lastPage);
    log(
      `Each list case: ${WARMUP} warm-up, ${REQUESTS} sequential requests (latency), ${REQUESTS} at concurrency ${CONCURRENCY} (throughput)\n`,
    );
    const rows: Row[] = [];
    // The floor: the same HTTP stack, sign-in check and envelope around an 8-row table.
    rows.push(await measureList('baseline: regions list', () => `${base}/api/regions`, headers));
    rows.push(await measureList('page 1, unfiltered', () => `${base}/api/domains?page=1`, headers));
    rows.push(
      await measureList(
        `page ${deep.toLocaleString('en')}, unfiltered`,
        () => `${base}/api/domains?page=${deep}`,
        headers,
      ),
    );
    rows.push(
      await measureList(
        'search, 3 letters, page 1',
        (i) => `${base}/api/domains?search=${SEARCHES[i % SEARCHES.length]}`,
        headers,
      ),
    );
    rows.push(
      await measureList(
        'dashboard (one request)',
        () => `${base}/api/dashboard`,
        headers,
        (data) => {
          const d = data as { domains: { total: number; expiringSoon: number } };
          return `${d.domains.total.toLocaleString('en')} counted, ${d.domains.expiringSoon} expiring`;
        },
      ),
    );
    rows.push(
      await measureList(
        'global search, 3 letters',
        (i) => `${base}/api/search?q=${SEARCHES[i % SEARCHES.length]}`,
        headers,
        (data) => `${(data as { hits: unknown[] }).hits.length} hits`,
      ),
    );

    // The filters of the list (issue 17), each alone, then one with a search.
    const one = async (q: string) =>
      ((await database.db.execute(sql.raw(q))) as unknown as { rows: { id: string }[] }).rows[0]!.id;
    const brand = await one('select id from brands order by brand_no offset 4 limit 1');
    const server = await one('select id from servers order by server_no offset 7 limit 1');
    const cloud = await one('select id from clouds order by cloud_no offset 3 limit 1');
    const registrator = await one('select id from domain_registrators order by domain_registrator_no limit 1');
    for (const [name, qs] of [
      ['filter brandId', `brandId=${brand}`],
      ['filter serverId', `serverId=${server}`],
      ['filter cloudId', `cloudId=${cloud}`],
      ['filter domainRegistratorId', `domainRegistratorId=${registrator}`],
      ['filter domainRegistratorId=none', 'domainRegistratorId=none'],
      ['filter status=inactive', 'status=inactive'],
      ['filter hasZone=true', 'hasZone=true'],
      ['filter expiresBefore', 'expiresBefore=2026-02-01'],
      ['filter brand + status + search', `brandId=${brand}&status=active&search=a`],
    ] as const) {
      rows.push(await measureList(name, () => `${base}/api/domains?${qs}`, headers));
    }

    const w = [30, 9, 9, 9, 10, 28];
    const line = (cells: string[]) =>
      cells.map((s, i) => (i === 0 || i === 5 ? s.padEnd(w[i]!) : s.padStart(w[i]!))).join('  ');
    log(line(['case', 'p50 ms', 'p99 ms', 'max ms', 'req/s', 'answer']));
    log(line(w.map((n) => '-'.repeat(n))));
    for (const r of rows) log(line([r.name, fmt(r.p50), fmt(r.p99), fmt(r.max), fmt(r.rps, 0), r.note]));
    log(`(searches rotated over: ${SEARCHES.join(', ')})\n`);

    const exports = await measureExport(`${base}/api/domains/export`, headers);
    log(line(['CSV export (full)', 'seconds', 'rows/s', 'MB', 'RSS +MB', 'peak RSS']));
    log(line(w.map((n) => '-'.repeat(n))));
    exports.forEach((e, i) =>
      log(
        line([
          `run ${i + 1}: ${e.rows.toLocaleString('en')} rows`,
          fmt(e.ms / 1000, 2),
          fmt(e.rows / (e.ms / 1000), 0),
          fmt(e.bytes / 1e6),
          fmt((e.peakRss - e.baseRss) / 1e6),
          `${fmt(e.peakRss / 1e6)} MB (app and client in one process)`,
        ]),
      ),
    );
    if (exports.some((e) => e.rows !== TOTAL))
      log(`!! the export returned ${exports.map((e) => e.rows).join(', ')} rows, expected ${TOTAL}`);
    log(`\nTotal time ${fmt((performance.now() - started) / 1000)} s`);
    await app.close();
  } finally {
    await drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
