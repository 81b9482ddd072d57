import fs from 'node:fs';
import readline from 'node:readline/promises';
import YAML from 'yaml';
import {
  FLEET_STATE_MESSAGES,
  FLEET_STATE_VERSION,
  FleetStateFileSchema,
  type FleetItem,
  type FleetPlan,
  type FleetStateFile,
  type StateDomain,
} from '@fleetdesk/contract';
import { must, type Api, type Query } from './client.ts';
import { planExitCode, planLink, planText } from './diff.ts';
import { CliError } from './errors.ts';
import { json, type Io } from './output.ts';

/** The largest file read (a 500-domain fleet with many records fits well under it). */
const FILE_MAX_BYTES = 16 * 1024 * 1024;
/** Pages of an export read at most (50 domains a page). */
const EXPORT_PAGES_MAX = 2000;
/** Waits `ms`, or less when `signal` aborts (Ctrl-C is answered at once, not after the poll's pause). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

type Ctx = { api: Api; origin: string; io: Io; json: boolean };

/** Reads and checks a state file: YAML (or JSON), then the file's schema; each problem named by its path. */
export function readStateFile(file: string): FleetStateFile {
  let text: string;
  try {
    const st = fs.statSync(file);
    if (st.size > FILE_MAX_BYTES) throw new CliError(`${file} is larger than ${FILE_MAX_BYTES / 1024 / 1024} MB`);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parseStateText(text, file);
}

export function parseStateText(text: string, file = 'the file'): FleetStateFile {
  let raw: unknown;
  try {
    // Aliases bounded: a small file cannot expand into a huge one.
    raw = YAML.parse(text, { maxAliasCount: 100, prettyErrors: true });
  } catch (err) {
    throw new CliError(`${file} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const r = FleetStateFileSchema.safeParse(raw);
  if (r.success) return r.data;
  const lines = r.error.issues.slice(0, 20).map((i) => `  ${i.path.length ? i.path.join('.') : '(top)'}: ${i.message}`);
  const more = r.error.issues.length > 20 ? `\n  … and ${r.error.issues.length - 20} more` : '';
  throw new CliError(`${file} does not match the fleet state schema (fleet.schema.json):\n${lines.join('\n')}${more}`);
}

/** The file as YAML: a header saying what it is, the domains not exported as comments. */
export function stateYaml(
  domains: StateDomain[],
  skipped: { domain: string; reason: string }[],
  origin: string,
): string {
  const doc = new YAML.Document({ version: FLEET_STATE_VERSION, domains });
  // YAML 1.1 readers take on / off / yes / no for booleans: quoted, the file means the same to every reader.
  YAML.visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && /^(on|off|yes|no|y|n|true|false)$/i.test(node.value))
        node.type = 'QUOTE_DOUBLE';
    },
  });
  doc.commentBefore = [
    ` Fleetdesk desired state, exported from ${origin}.`,
    ' Schema: packages/cli/fleet.schema.json (`fleetdesk schema` prints it). A key left out is not managed;',
    ' DNS records are managed per (type, name); `purge: true` deletes the pairs not listed.',
    ...(skipped.length ? [' Not exported:', ...skipped.map((s) => `   ${s.domain}: ${s.reason}`)] : []),
  ].join('\n');
  return doc.toString({ lineWidth: 0 });
}

type Filter = Omit<Query<'/api/fleet/state'>, 'page'>;

export async function exportState(ctx: Ctx, filter: Filter, output: string | undefined): Promise<number> {
  const domains: StateDomain[] = [];
  const skipped: { domain: string; reason: string }[] = [];
  for (let page = 1; page <= EXPORT_PAGES_MAX; page++) {
    const res = await must(ctx.origin, ctx.api.GET('/api/fleet/state', { params: { query: { ...filter, page } } }));
    domains.push(...(res.domains as StateDomain[]));
    skipped.push(...res.skipped);
    if (ctx.io.interactive) ctx.io.err(`Read ${domains.length + skipped.length} domains…\r`);
    if (!res.hasMore) break;
  }
  if (ctx.io.interactive) ctx.io.err('\n');
  const text = ctx.json
    ? json({ version: FLEET_STATE_VERSION, domains, skipped })
    : stateYaml(domains, skipped, ctx.origin);
  if (output) fs.writeFileSync(output, text);
  else ctx.io.out(text);
  for (const s of skipped) ctx.io.err(`Not exported: ${s.domain}: ${s.reason}\n`);
  ctx.io.err(`Exported ${domains.length} domain${domains.length === 1 ? '' : 's'}${output ? ` to ${output}` : ''}.\n`);
  return 0;
}

/** Waits for a plan to leave `from` (polling, bounded), showing where it is. */
async function waitPlan(
  ctx: Ctx,
  id: string,
  from: string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<FleetPlan> {
  const until = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const p = (await must(ctx.origin, ctx.api.GET('/api/fleet/plans/{id}', { params: { path: { id } } }))) as FleetPlan;
    if (!from.includes(p.state) || signal?.aborted) return p;
    const line =
      p.state === 'planning'
        ? `Planning: ${p.counts.total - p.counts.pending} of ${p.counts.total} domains read`
        : `${p.stateText}${p.runText ? `: ${p.runText}` : ''}`;
    if (line !== last && ctx.io.interactive) ctx.io.err(`${line}\n`);
    last = line;
    if (Date.now() > until)
      throw new CliError(`Plan #${p.planNo} is still ${p.state}; see ${planLink(ctx.origin, id)}`);
    await sleep(p.state === 'planning' ? 500 : 1000, signal);
  }
}

/** Every item of the plan with this outcome (paged, bounded by the file's 500 domains). */
async function itemsOf(ctx: Ctx, id: string, outcome: 'change' | 'refused', n: number): Promise<FleetItem[]> {
  const out: FleetItem[] = [];
  for (let page = 1; out.length < n && page <= 100; page++) {
    const res = await must(
      ctx.origin,
      ctx.api.GET('/api/fleet/plans/{id}/items', { params: { path: { id }, query: { page, outcome } } }),
    );
    if (!res.items.length) break;
    out.push(...(res.items as FleetItem[]));
  }
  return out;
}

/** Plans the file on the server (a fleet plan the console shows) and prints it as a diff. */
async function planFile(ctx: Ctx, file: string) {
  const body = readStateFile(file);
  const created = (await must(ctx.origin, ctx.api.POST('/api/fleet/state/plans', { body }))) as FleetPlan;
  const plan = await waitPlan(ctx, created._id, ['planning'], 30 * 60_000);
  if (plan.state !== 'planned')
    throw new CliError(`Plan #${plan.planNo} ${plan.stateText.toLowerCase()}${plan.error ? `: ${plan.error}` : ''}`);
  const changes = await itemsOf(ctx, plan._id, 'change', plan.counts.change);
  const refused = await itemsOf(ctx, plan._id, 'refused', plan.counts.refused);
  if (ctx.json) ctx.io.out(json({ plan, link: planLink(ctx.origin, plan._id), changes, refused }));
  else ctx.io.out(planText(ctx.origin, plan, changes, refused));
  return plan;
}

export async function plan(ctx: Ctx, file: string): Promise<number> {
  return planExitCode(await planFile(ctx, file));
}

export type ApplyOptions = { maxChanges?: number; yes: boolean; confirm?: (question: string) => Promise<boolean> };

async function askOnTerminal(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim().toLowerCase() === 'yes';
  } finally {
    rl.close();
  }
}

/**
 * Plans the file, then runs that plan: refused past `maxChanges`, asked for unless `yes`, followed to its end.
 * Ctrl-C pauses the run (the console's Pause) and exits once the server says it is paused: nothing is left half-known.
 */
export async function apply(ctx: Ctx, file: string, o: ApplyOptions): Promise<number> {
  const p = await planFile(ctx, file);
  if (p.counts.refused > 0)
    throw new CliError(
      `${p.counts.refused} of the file's domains cannot be planned (marked !): fix the file; nothing was run`,
    );
  if (p.counts.change === 0) {
    ctx.io.err('Nothing to change.\n');
    return 0;
  }
  if (o.maxChanges !== undefined && p.counts.change > o.maxChanges)
    throw new CliError(FLEET_STATE_MESSAGES.maxChanges(p.counts.change, o.maxChanges));
  if (!o.yes) {
    const confirm = o.confirm ?? (process.stdin.isTTY ? askOnTerminal : undefined);
    if (!confirm) throw new CliError('Pass --yes to apply without a question (standard input is not a terminal)');
    if (!(await confirm(`Change ${p.counts.change} domain${p.counts.change === 1 ? '' : 's'}? Type yes to apply: `))) {
      ctx.io.err('Not applied.\n');
      return 1;
    }
  }
  await must(
    ctx.origin,
    ctx.api.POST('/api/fleet/plans/{id}/run', {
      params: { path: { id: p._id } },
      body: o.maxChanges !== undefined ? { maxChanges: o.maxChanges } : {},
    }),
  );
  // The handler goes in before the line that says the run started: a Ctrl-C right after it (or a script's SIGINT
  // on seeing it) must find the handler, not end the process with the run going on unwatched.
  const interrupted = new AbortController();
  const onSigint = () => interrupted.abort();
  process.once('SIGINT', onSigint);
  ctx.io.err(`Running plan #${p.planNo}: ${planLink(ctx.origin, p._id)}\n`);
  let end: FleetPlan;
  try {
    end = await waitPlan(ctx, p._id, ['running'], 24 * 60 * 60_000, interrupted.signal);
  } finally {
    process.off('SIGINT', onSigint);
  }
  if (interrupted.signal.aborted && end.state === 'running') {
    ctx.io.err('Pausing…\n');
    await must(ctx.origin, ctx.api.POST('/api/fleet/plans/{id}/pause', { params: { path: { id: p._id } } }));
    // The domains in flight finish their step; the plan then reads Paused, each domain done or not.
    end = await waitPlan(ctx, p._id, ['running'], 120_000);
    ctx.io.err(
      `Paused plan #${end.planNo}: ${end.runText}. Resume it in the console: ${planLink(ctx.origin, p._id)}\n`,
    );
    return 130;
  }
  ctx.io.err(`${end.stateText}${end.runText ? `: ${end.runText}` : ''}\n`);
  if (end.state !== 'completed') {
    const items = await must(
      ctx.origin,
      ctx.api.GET('/api/fleet/plans/{id}/items', { params: { path: { id: p._id }, query: { status: 'failed' } } }),
    );
    for (const it of items.items as FleetItem[]) ctx.io.err(`! ${it.domainName}: ${it.error ?? 'failed'}\n`);
    return 1;
  }
  return 0;
}
