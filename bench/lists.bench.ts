/**
 * Lists at scale (issue 15): our API against a minimal hand-written Fastify + pg endpoint, same rows, same
 * cases, interleaved, under concurrent load (autocannon).
 *
 *   DATABASE_URL=postgres://… npm run bench:lists
 *   npm run bench:lists -- --duration 10 --warmup 2 --runs 3 --connections 32 --domains 100000
 *   npm run bench:lists -- --only search   (cases whose name contains the text)
 *   npm run bench:lists -- --keep          (keep the scratch database for EXPLAIN)
 *   npm run bench:lists -- --cpu-prof DIR  (both our servers run under --cpu-prof; their profiles are summarised at the end)
 *   npm run bench:lists -- --writes 20     (a steady stream of 20 writes a second during every measured run)
 *   npm run bench:lists -- --view full     (ours answers whole domains; by default the list view the console asks for)
 *
 * It creates a scratch database on the server of DATABASE_URL (BENCH_DB_PREFIX, default fd_bench_), seeds
 * 100,000 domains (bench/seed.ts), copies them for the baseline (bench_domains and bench_brands with the same
 * indexes), starts both servers as child processes, signs in to ours, and runs each case against both, one
 * after the other, `runs` times. It prints each case's median req/s and p99 for both, the ratio, and checks
 * that both answered the same itemsCount. A third server, ours with no domains page kept in memory
 * (LIST_PAGE_CACHE_SIZE=0), runs each case once more after them ("no-cache"): what the queries alone give.
 * With `--writes N`, a writer runs during every measured run (ours, theirs and no-cache alike): N writes a
 * second, open loop (at most 64 in flight): half of them a domain edit through our API (PATCH status, the same
 * change copied to the baseline's rows so both keep answering the same counts), a quarter a health result
 * stored by the health job's repository from this process, a quarter a fleet run's step (its item's outcome
 * and its job's progress, as the fleet run job writes them, through the fleet and jobs repositories). After each domain edit a list read through our API
 * (search by the name, filtered by the new status) must show the domain: read-after-write visibility. Each case
 * then prints the writes done of those asked, their p99, and how many reads after a write saw it. Each case also
 * prints the CPU time one answer cost, in the server's process and in PostgreSQL's (read from /proc, Linux).
 * It never asserts a time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import autocannon from 'autocannon';
import { openPostgres } from '../apps/api/src/db/client.ts';
import { createContainer } from '../apps/api/src/container.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { hashPassword } from '../apps/api/src/lib/passwords.ts';
import { FLEET_RUN_JOB } from '../apps/api/src/modules/fleet/fleet.service.ts';
import { seedDomains } from './seed.ts';
import { summarise } from './profile-summary.ts';

const args = process.argv.slice(2);
const num = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const str = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const TOTAL = num('domains', 100_000);
const DURATION = num('duration', 10);
const WARMUP = num('warmup', 2);
const RUNS = num('runs', 3);
const CONNECTIONS = num('connections', 32);
const ONLY = str('only');
/** The domains list's view ours is asked for: `list`, as the console asks (default), or `full` (whole domains). */
const VIEW = str('view') ?? 'list';
if (VIEW !== 'list' && VIEW !== 'full') throw new Error('--view is list or full');
const KEEP = args.includes('--keep');
const CPU_PROF = str('cpu-prof');
const WRITES = num('writes', 0);
const MAX_WRITES_IN_FLIGHT = 64;
const here = path.dirname(fileURLToPath(import.meta.url));
const log = (s: string) => process.stdout.write(`${s}\n`);

type Case = { name: string; paths: string[]; ours: string; theirs: string; oursQuery?: string };

function startChild(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(here, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /ready (\d+)/.exec(out);
      if (m) resolve({ port: Number(m[1]), child });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** CPU time (ms) a process has used, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid: number, reaped = false): number | undefined {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime; with `reaped`, also the children's that have ended (cutime, cstime), in clock ticks.
    return ((Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0)) * 1000) / 100;
  } catch {
    return undefined;
  }
}
/**
 * CPU time (ms) PostgreSQL's processes on this machine have used, those that ended included (the postmaster
 * reaps its backends); a server elsewhere counts as 0.
 */
function postgresCpuMs(): number {
  let sum = 0;
  for (const d of fs.existsSync('/proc') ? fs.readdirSync('/proc') : []) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'postgres') sum += cpuMs(Number(d), true) ?? 0;
    } catch {
      // Gone meanwhile.
    }
  }
  return sum;
}

/** Ours as the console asks: the domains list in its list view (--view). */
const oursPaths = (k: Case) => k.paths.map((x) => k.ours + x + (k.oursQuery ?? ''));

async function load(url: string, paths: string[], headers: Record<string, string>, seconds: number, pid?: number) {
  let i = 0;
  const cpu0 = pid ? cpuMs(pid) : undefined;
  const pg0 = postgresCpuMs();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers,
    // Our API ends a keep-alive socket after 1,000 requests (maxRequestsPerSocket, http/security.ts) with
    // `Connection: close`; autocannon ignores that header, and Node answers 503 to whatever it sends after. A
    // browser reconnects: so do these clients, every 500 requests, against both servers alike.
    reconnectRate: 500,
    requests: [{ setupRequest: (req: { path: string }) => ({ ...req, path: paths[i++ % paths.length]! }) }],
  });
  const codes = Object.entries(
    (result as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {},
  )
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, v]) => `${code}: ${v.count}`)
    .join(', ');
  const cpu1 = pid ? cpuMs(pid) : undefined;
  const answers = Math.max(1, result['2xx']);
  return {
    // Only answers that are the list count: a fast 429 or 5xx must never pass for throughput.
    rps: result['2xx'] / result.duration,
    // CPU per answer: the server's process, and PostgreSQL's (the write stream's share included, alike for all).
    cpu: cpu0 !== undefined && cpu1 !== undefined ? (cpu1 - cpu0) / answers : NaN,
    pgCpu: (postgresCpuMs() - pg0) / answers,
    p99: result.latency.p99,
    p50: result.latency.p50,
    errors: result.non2xx + result.errors,
    what: [codes, result.errors ? `connection errors: ${result.errors}` : ''].filter(Boolean).join(', '),
  };
}

/** The hits of a case's paths: one number, or the lowest and highest. */
const hitsText = (hits: number[]) => {
  const lo = Math.min(...hits).toLocaleString('en');
  const hi = Math.max(...hits).toLocaleString('en');
  return lo === hi ? lo : `${lo}-${hi}`;
};

import { type WriteReport, type WriteTarget } from './lists-writer.ts';

const writesText = (r: WriteReport) =>
  `${r.done}/${r.asked} done${r.failed ? ` (${r.failed} failed)` : ''}, p99 ${r.p99.toFixed(0)} ms, ` +
  `read-after-write ${r.seen}/${r.checked}`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('bench:lists needs DATABASE_URL (a PostgreSQL server)');
  const name = `${process.env.BENCH_DB_PREFIX ?? 'fd_bench_'}lists_${crypto.randomBytes(4).toString('hex')}`;
  const admin = await openPostgres(url, { max: 1 });
  await admin.exec(`CREATE DATABASE ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const dbUrl = u.toString();
  const children: ChildProcess[] = [];
  const profDir = CPU_PROF ? path.resolve(CPU_PROF) : undefined;
  const started = Date.now();
  const database = await openPostgres(dbUrl, { max: 4 });
  try {
    const version = await database.db.execute(sql`select version() as v`);
    const v = (version as unknown as { rows: { v: string }[] }).rows[0]?.v.split(' on ')[0];
    log(`Lists benchmark: ${TOTAL.toLocaleString('en')} domains on ${v} (scratch database ${name})`);
    log(
      `Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    log(
      `autocannon: ${CONNECTIONS} connections, ${WARMUP} s warm-up then ${DURATION} s, ${RUNS} runs per case, ours and theirs interleaved, then no-cache once`,
    );
    log(
      VIEW === 'list'
        ? 'ours is asked for the domains list view (view=list), as the console asks; --view full asks whole domains'
        : 'ours is asked for whole domains (--view full); the console asks view=list',
    );
    log(
      WRITES
        ? `writes: ${WRITES} a second during every measured run (1/2 domain edits through our API, 1/4 health results, 1/4 fleet run steps)\n`
        : 'no writes (idle lists; --writes N adds a stream)\n',
    );
    await database.migrate();
    const t0 = performance.now();
    await seedDomains(database, TOTAL, log);
    // The baseline's own copy of the same rows, with the indexes such an endpoint would have.
    await database.exec(`
      create table bench_domains as select * from domains;
      alter table bench_domains add primary key (id);
      create unique index on bench_domains (domain_no);
      create index on bench_domains using gin (domain_name gin_trgm_ops);
      create index on bench_domains using gin (redirect_domain_name gin_trgm_ops);
      create index on bench_domains (brand_id);
      create index on bench_domains (server_id);
      create index on bench_domains (cloud_id);
      create index on bench_domains (domain_registrator_id);
      create table bench_brands as select * from brands;
      alter table bench_brands add primary key (id);
      create unique index on bench_brands (brand_no);
    `);
    await database.exec('vacuum analyze');
    log(`  seed, copy and vacuum analyze: ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const one = async <T>(q: string) => ((await database.db.execute(sql.raw(q))) as unknown as { rows: T[] }).rows[0]!;
    const brand = (await one<{ id: string }>('select id from brands order by brand_no offset 4 limit 1')).id;
    const server = (await one<{ id: string }>('select id from servers order by server_no offset 7 limit 1')).id;
    const cloud = (await one<{ id: string }>('select id from clouds order by cloud_no offset 3 limit 1')).id;

    // Sign in to ours through the API, as a user with only the domains and brands rules.
    const config = loadConfig({ ...process.env, DATABASE_URL: dbUrl, LOG_LEVEL: 'silent' }, { dotenv: false });
    const c = await createContainer(config, { database });
    const password = crypto.randomBytes(12).toString('hex');
    const role = await c.repos.roles.insert({ name: 'Bench', rules: ['cnv:domains', 'cnv:brands'] });
    const user = await c.repos.users.insert({
      username: 'bench',
      name: 'Bench',
      email: 'bench@example.test',
      passwordHash: await hashPassword(password),
    });
    await c.repos.users.setRoles(user.id, [role.id]);

    const env = { DATABASE_URL: dbUrl, NODE_ENV: 'production' };
    const ours = await startChild('lists-app.ts', env, profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []);
    children.push(ours.child);
    const theirs = await startChild('lists-baseline.ts', env);
    children.push(theirs.child);
    // Ours again with no domains page kept in memory: what the queries themselves give (one run per case).
    const cold = await startChild(
      'lists-app.ts',
      { ...env, LIST_PAGE_CACHE_SIZE: '0' },
      profDir ? ['--cpu-prof', '--cpu-prof-dir', path.join(profDir, 'no-cache')] : [],
    );
    children.push(cold.child);
    const oursBase = `http://127.0.0.1:${ours.port}`;
    const theirsBase = `http://127.0.0.1:${theirs.port}`;
    const coldBase = `http://127.0.0.1:${cold.port}`;
    const res = await fetch(`${oursBase}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password }),
    });
    if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
    const headers = { authorization: res.headers.get('authorization')! };

    const targets: WriteTarget[] = WRITES
      ? (
          (await database.db.execute(
            sql`select id, domain_name as name, status from domains order by domain_no limit 2000`,
          )) as unknown as { rows: WriteTarget[] }
        ).rows
      : [];
    // A fleet run over the write targets, its job running: each fleet step writes an item and the job's progress.
    const plan = WRITES
      ? await c.repos.fleet.insertPlan({
          action: { kind: 'ssl', value: 'strict' },
          selection: { bench: true },
          state: 'running',
          total: targets.length,
        })
      : undefined;
    if (plan)
      await c.repos.fleet.insertItems(
        plan.id,
        targets.map((t) => ({ domainId: t.id, domainName: t.name, cloudId: null, cloudEmail: null })),
      );
    const job = plan
      ? await c.repos.jobs.insert({
          kind: FLEET_RUN_JOB,
          area: 'cnv:domains',
          domainId: null,
          payload: { planId: plan.id },
          state: 'running',
        })
      : undefined;
    // The writer runs in a process of its own: sharing this one's event loop with autocannon, a write would wait
    // for autocannon's work and its time would not be the write's.
    const writerChild = WRITES
      ? spawn(process.execPath, ['--import', 'tsx', path.join(here, 'lists-writer.ts')], {
          env: { ...process.env, DATABASE_URL: dbUrl },
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        })
      : undefined;
    if (writerChild) children.push(writerChild);
    const fromWriter = () =>
      new Promise<{ type: string; report?: WriteReport }>((resolve, reject) => {
        const exited = (code: number | null) => reject(new Error(`the writer exited with ${code}`));
        writerChild!.once('exit', exited);
        writerChild!.once('message', (m) => {
          writerChild!.off('exit', exited);
          resolve(m as { type: string; report?: WriteReport });
        });
      });
    if (writerChild) {
      const ready = fromWriter();
      writerChild.send({
        type: 'init',
        oursBase,
        authorization: headers.authorization,
        planId: plan!.id,
        jobId: job!.id,
        targets,
        perSecond: WRITES,
        maxInFlight: MAX_WRITES_IN_FLIGHT,
      });
      await ready;
    }
    const during = async <T>(fn: () => Promise<T>, into?: WriteReport[]): Promise<T> => {
      if (!writerChild) return fn();
      const started = fromWriter();
      writerChild.send({ type: 'start' });
      await started;
      try {
        return await fn();
      } finally {
        const stopped = fromWriter();
        writerChild.send({ type: 'stop' });
        into?.push((await stopped).report!);
      }
    };

    const search = (terms: string[]) => terms.map((s) => `?search=${encodeURIComponent(s)}`);
    const domainCase = (name: string, qs: string[]): Case => ({
      name,
      paths: qs,
      ours: '/api/domains',
      theirs: '/domains',
      oursQuery: VIEW === 'list' ? '&view=list' : '',
    });
    const cases: Case[] = [
      domainCase('page 1', ['?page=1']),
      domainCase('page 4,000', ['?page=4000']),
      domainCase('search, 1 letter', search(['a', 'b', 'c', 'd', 'e', 'f'])),
      domainCase('search, 2 letters (~4%)', search(['ab', 'cd', 'ef', 'a1', 'b2', 'c3'])),
      domainCase('search, 3 letters (~4%)', search(['2.o', '1.n', '4.d'])),
      domainCase('search, 3 letters (<0.5%)', search(['abc', 'e4f', '7d2', 'c0f', '9ab', 'f31'])),
      domainCase('filter brandId', [`?brandId=${brand}`]),
      domainCase('filter serverId', [`?serverId=${server}`]),
      domainCase('filter cloudId', [`?cloudId=${cloud}`]),
      domainCase('filter domainRegistratorId=none', ['?domainRegistratorId=none']),
      domainCase('filter status=inactive', ['?status=inactive']),
      domainCase('filter hasZone=false', ['?hasZone=false']),
      domainCase('filter expiresBefore', ['?expiresBefore=2026-02-01']),
      domainCase('filters combined + search', [`?brandId=${brand}&status=active&search=a`]),
      { name: 'brands list (floor)', paths: ['?page=1'], ours: '/api/brands', theirs: '/brands' },
    ].filter((k) => !ONLY || k.name.includes(ONLY));

    // Both must answer the same counts, or the comparison means nothing.
    for (const k of cases) {
      const counts: number[] = [];
      for (const p of k.paths) {
        const a = (await (await fetch(`${oursBase}${k.ours}${p}${k.oursQuery ?? ''}`, { headers })).json()) as {
          data: { itemsCount: number };
        };
        const b = (await (await fetch(`${theirsBase}${k.theirs}${p}`)).json()) as { data: { itemsCount: number } };
        if (a.data?.itemsCount !== b.data?.itemsCount)
          throw new Error(`${k.name} ${p}: ours counted ${a.data?.itemsCount}, the baseline ${b.data?.itemsCount}`);
        counts.push(a.data.itemsCount);
      }
      (k as Case & { hits?: number[] }).hits = counts;
    }

    const w = [30, 10, 9, 10, 9, 8, 13, 10, 9, 8];
    const line = (cells: string[]) => cells.map((s, i) => (i === 0 ? s.padEnd(w[i]!) : s.padStart(w[i]!))).join('  ');
    log(line(['case', 'ours req/s', 'p99 ms', 'hand req/s', 'p99 ms', 'ratio', 'hits', 'no-cache', 'p99 ms', 'ratio']));
    log(line(w.map((n) => '-'.repeat(n))));
    for (const k of cases) {
      const o: { rps: number; p99: number; errors: number; cpu: number; pgCpu: number }[] = [];
      const t: typeof o = [];
      const wOurs: WriteReport[] = [];
      const wTheirs: WriteReport[] = [];
      const wCold: WriteReport[] = [];
      for (let run = 0; run < RUNS; run++) {
        for (const [who, base, paths, h, into, writes, pid] of [
          ['ours', oursBase, oursPaths(k), headers, o, wOurs, ours.child.pid],
          ['theirs', theirsBase, k.paths.map((x) => k.theirs + x), {}, t, wTheirs, theirs.child.pid],
        ] as const) {
          if (WARMUP > 0) await load(base, paths, h, WARMUP);
          const r = await during(() => load(base, paths, h, DURATION, pid), writes);
          if (r.errors) log(`  !! ${who} ${k.name}: ${r.errors} errors or non-2xx answers (${r.what})`);
          into.push(r);
        }
      }
      // The same sign-in token works on both of ours: they share the database, sessions included.
      const coldPaths = oursPaths(k);
      if (WARMUP > 0) await load(coldBase, coldPaths, headers, WARMUP);
      const c = await during(() => load(coldBase, coldPaths, headers, DURATION, cold.child.pid), wCold);
      if (c.errors) log(`  !! no-cache ${k.name}: ${c.errors} errors or non-2xx answers (${c.what})`);
      const or = median(o.map((x) => x.rps));
      const tr = median(t.map((x) => x.rps));
      log(
        line([
          k.name,
          or.toFixed(0),
          median(o.map((x) => x.p99)).toFixed(0),
          tr.toFixed(0),
          median(t.map((x) => x.p99)).toFixed(0),
          `${(or / tr).toFixed(1)}x`,
          hitsText((k as Case & { hits?: number[] }).hits ?? []),
          c.rps.toFixed(0),
          c.p99.toFixed(0),
          `${(c.rps / tr).toFixed(1)}x`,
        ]),
      );
      // What each answer cost the machine: where no list is read (a kept page), ours costs about what the
      // hand-written endpoint does, which sets how far ahead of it reading the database on every request can be.
      const ms = (r: { cpu: number; pgCpu: number }[]) =>
        `${median(r.map((x) => x.cpu)).toFixed(2)} + ${median(r.map((x) => x.pgCpu)).toFixed(2)} ms`;
      log(`    CPU per answer (server + PostgreSQL): ours ${ms(o)}, hand-written ${ms(t)}, no-cache ${ms([c])}`);
      if (WRITES) {
        // The run with the fewest writes done stands for the case: the one where writes suffered most.
        const worst = (rs: WriteReport[]) => rs.reduce((a, b) => (b.done / b.asked < a.done / a.asked ? b : a));
        log(`    writes during ours: ${writesText(worst(wOurs))}`);
        log(`    writes during hand-written: ${writesText(worst(wTheirs))}`);
        log(`    writes during no-cache: ${writesText(worst(wCold))}`);
      }
    }
    log(
      `\nload average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await Promise.all(
      children.map(
        (ch) =>
          new Promise((resolve) => {
            if (ch.exitCode !== null) return resolve(undefined);
            ch.once('exit', resolve);
            ch.kill('SIGTERM');
          }),
      ),
    );
    if (profDir) {
      for (const [who, dir] of [
        ['our API', profDir],
        ['our API without kept pages', path.join(profDir, 'no-cache')],
      ] as const) {
        const newest = fs.existsSync(dir)
          ? fs
              .readdirSync(dir)
              .filter((f) => f.endsWith('.cpuprofile'))
              .map((f) => path.join(dir, f))
              .filter((f) => fs.statSync(f).mtimeMs >= started)
              // The largest: the main thread's (tsx's loader thread writes a small one beside it).
              .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]
          : undefined;
        if (newest)
          log(`\n== Profile of ${who} (${newest})\n${summarise(JSON.parse(fs.readFileSync(newest, 'utf8')), 25)}`);
      }
    }
    await database.close();
    if (KEEP) log(`Kept the scratch database ${name}; drop it with: DROP DATABASE ${name};`);
    else await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
