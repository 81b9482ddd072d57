import {
  LAUNCH_BATCH_MAX,
  LAUNCH_CSV_COLUMNS,
  LAUNCH_ROW_STATUSES,
  LaunchBatchRowInputSchema,
  toAsciiDomain,
  type LaunchBatch,
  type LaunchBatchInput,
  type LaunchBatchInputParsed,
  type LaunchBatchRow,
  type LaunchBatchRowsQuery,
  type LaunchInputParsed,
  type LaunchRowStatus,
  type LaunchSettings,
  type LaunchState,
  type LaunchBatchState,
  type ListResult,
  planStateOf,
  planTallyOf,
  stateText,
} from '@fleetdesk/contract';
import { CsvError, parse } from 'csv-parse/sync';
import { isConnectionError } from '../../db/pg-errors.ts';
import type { Actor } from '../../http/context.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../http/errors.ts';
import { PermanentJobError, type JobContext } from '../../lib/jobs.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { unicodeOf } from '../domains/domains.repository.ts';
import { allPages, messageOf, type ItemResult, type PlanEngine, type RunKind } from '../plans/plans.engine.ts';
import { createPlanVerbs } from '../plans/plans.verbs.ts';
import {
  launchRowOf,
  type LaunchBatchRow as BatchRow,
  type LaunchBatchRowRow,
  type LaunchesRepository,
  type LaunchWaiting,
} from './launches.repository.ts';
import { RULES_OF_OLD_RUNS, blockerText, progressOf, sleep, type LaunchesService } from './launches.service.ts';
import { splitDomain } from '../../integrations/namecheap/index.ts';
import type { RegistrarService } from '../domain-registrators/registrar.service.ts';

/**
 * A batch job: the batch, and the rules of whoever queued the job (the launches it plans and starts get them);
 * batchNo names the job after its batch (jobOwner).
 */
export type BatchJobPayload = { batchId: string; batchNo?: number; rules?: string[] };

export const LAUNCH_BATCH_PLAN_JOB = 'launches.batch-plan';
export const LAUNCH_BATCH_RUN_JOB = 'launches.batch-run';

/** What a batch's run works on, for the plan engine: its names not started (one launch each, its stages inside). */
const BATCH_RUN: RunKind = {
  kind: 'launches',
  toDo: { statuses: ['pending'] },
  inRun: () => true,
  unit: 'names',
  runJob: LAUNCH_BATCH_RUN_JOB,
};

type Overrides = Partial<Pick<LaunchSettings, 'serverId' | 'brandId' | 'cloudId' | 'sslMode'>> & {
  copyFromDomainId?: string | null;
};

/** How many bad lines one answer names (the rest are counted). */
const LAUNCH_BAD_LINES_SHOWN = 50;

const MESSAGES = {
  notFound: 'Launch batch not found',
  tooMany: `A batch holds at most ${LAUNCH_BATCH_MAX} names`,
  notRunnable: 'Only a planned or paused batch can be run',
  notRunning: 'The batch is not running',
  notPaused: 'The batch is not paused',
  finished: 'The batch has already finished',
  noFailed: 'No name of the batch has failed',
  nothingToConfirm: 'No launch of the batch waits for a confirmation',
  notStarted: 'The launch did not start',
  launchGone: 'The launch is gone',
  csvHeader: `The CSV's first line names its columns: ${LAUNCH_CSV_COLUMNS.join(', ')} (the column "domainName" is required)`,
  badName: (line: number, name: string) => `Line ${line}: ${name || '(empty)'} is not a valid host name`,
  // The CSV's columns hold what people know (an IP address, a name, an email), and say so when none matches.
  noServer: (ip: string) => `no server has the IP address ${ip}`,
  noBrand: (name: string) => `no brand is named ${name}`,
  noCloud: (email: string) => `no cloud has the email ${email}`,
  noCopyFrom: (name: string) => `no console domain ${name} to copy the content from`,
  badSsl: (ssl: string) => `SSL mode ${ssl} is not one of off, flexible, full, strict`,
  badCsv: (why: string) =>
    `The CSV could not be read (${why}): a quoted field ends with its quote, and a quote inside it is doubled ("")`,
  /** One bad line as it is; many as a count, then each on its own line. */
  badLines: (lines: string[]) =>
    lines.length === 1
      ? lines[0]!
      : [
          `${lines.length} lines are wrong:`,
          ...lines.slice(0, LAUNCH_BAD_LINES_SHOWN),
          ...(lines.length > LAUNCH_BAD_LINES_SHOWN ? [`… and ${lines.length - LAUNCH_BAD_LINES_SHOWN} more`] : []),
        ].join('\n'),
} as const;

type Price = { cost: { amount: string; currency: string } | null; priceError: string | null };
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * What Confirm all will buy or change, said before it does: the registrations, their years and their total at
 * Namecheap's price (or why the price could not be read, never a made-up sum); the existing console domains
 * whose settings the launches will change.
 */
const confirmText = (registrations: number, settings: number, years: number, price: Price | null) => {
  const parts: string[] = [];
  if (registrations) {
    const total = price?.cost
      ? `, ${price.cost.amount} ${price.cost.currency} in all at Namecheap's price`
      : price?.priceError
        ? `; ${price.priceError}`
        : ', charged by the registrar at its price';
    parts.push(
      `Register ${plural(registrations, 'name')} for ${plural(years, 'year')} each: ` +
        `${plural(registrations * years, 'name-year')} in all${total}. ` +
        'Each registration costs money and cannot be undone.',
    );
  }
  if (settings)
    parts.push(
      `Change the settings of ${plural(settings, 'existing console domain')} (server, registrator, …), ` +
        "as each launch's page says.",
    );
  return parts.join(' ');
};

/**
 * RFC 4180 lines (quoted fields with doubled quotes, commas and line breaks inside; CRLF, LF or CR), at most
 * `maxRows` + 1 of them: blank lines are skipped, rows may differ in length, a quote inside an unquoted field is
 * kept as it is. A quoted field left open (or followed by more than spaces) is a 400 on the `csv` field.
 */
export function parseCsv(text: string, maxRows: number): string[][] {
  try {
    return parse(text, {
      bom: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_quotes: true,
      relax_column_count: true,
      rtrim: true,
      skip_records_with_empty_values: true,
      to: maxRows + 1,
    });
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const message = MESSAGES.badCsv(err.message);
    throw new ValidationError(message, { csv: message });
  }
}

/**
 * A launch over many names (decision 044): planned first (each name's plan, blockers named), then run as one
 * job that keeps a few launches going at a time. Each name is an ordinary launch, so its calls keep to the
 * providers' own budgets (Cloudflare's per account as background work, Namecheap's per account, Yandex's quotas)
 * exactly as a single launch does; pause, resume, cancel and retry-failed act on the batch's names.
 */
export function createLaunchBatchesService(deps: {
  repo: LaunchesRepository;
  launches: LaunchesService;
  /** The registration prices Confirm all shows (Namecheap's getPricing, kept briefly). */
  registrar: Pick<RegistrarService, 'registrationPrice'>;
  /** The plan engine: run, pause, resume and cancel, as for every kind of plan. */
  plans: PlanEngine;
  audit: AuditService;
  /** Launches of one batch running at once. */
  concurrency: number;
  /** Pause between two looks at the running launches. */
  pollMs: number;
}) {
  const { repo, audit } = deps;

  const load = async (id: string) => {
    const b = await repo.findBatch(id);
    if (!b) throw new NotFoundError(MESSAGES.notFound);
    return b;
  };
  /** The audit entry of a verb that takes many names: how many it took. */
  const recordNames = (actor: Actor, action: string, id: string, names: number) =>
    audit.record(actor, { action, entity: 'launch_batches', entityId: id, details: { names } });

  /**
   * The registrations' total at Namecheap's price: one price read per registrator, TLD and years (kept briefly by
   * the registrar service); the first price that cannot be read says why, and so do prices in more than one currency.
   */
  const priceOf = async (regs: LaunchWaiting[]): Promise<Price> => {
    const groups = new Map<string, { w: LaunchWaiting; n: number }>();
    for (const w of regs) {
      const r = w.registration!;
      let tld = w.domainName;
      try {
        tld = splitDomain(w.domainName).tld;
      } catch {
        // A name with no registrable suffix is priced alone; its price read says why it has none.
      }
      const key = `${r.domainRegistratorId}\0${tld}\0${r.years}`;
      const g = groups.get(key);
      groups.set(key, { w: g?.w ?? w, n: (g?.n ?? 0) + 1 });
    }
    const sums = new Map<string, number>();
    for (const { w, n } of groups.values()) {
      const r = w.registration!;
      const p = await deps.registrar.registrationPrice(r.domainRegistratorId, w.domainName, r.years);
      if (!p.cost) return { cost: null, priceError: p.priceError };
      sums.set(p.cost.currency, (sums.get(p.cost.currency) ?? 0) + Number(p.cost.amount) * n);
    }
    if (sums.size !== 1) {
      const currencies = [...sums.keys()].join(', ');
      return {
        cost: null,
        priceError: `price unavailable: Namecheap priced these names in more than one currency (${currencies})`,
      };
    }
    const [currency, sum] = [...sums][0]!;
    return { cost: { amount: (Math.round(sum * 100) / 100).toFixed(2), currency }, priceError: null };
  };

  /**
   * What Confirm all covers: the waiting launches by kind and, when `priced`, the registrations' total at
   * Namecheap's price.
   */
  const confirmationOf = async (
    b: BatchRow,
    waiting: LaunchWaiting[],
    priced: boolean,
  ): Promise<LaunchBatch['confirmation']> => {
    if (!waiting.length) return null;
    // Each launch's own registration (resolved from the profile when the batch's settings leave it to it).
    const regs = waiting.filter((w) => w.stage === 'register' && w.registration);
    const years = regs[0]?.registration!.years ?? b.settings.registration?.years ?? 1;
    const settings = waiting.filter((w) => w.stage === 'domain').length;
    const price = priced && regs.length ? await priceOf(regs) : null;
    return {
      names: waiting.length,
      years,
      registrations: regs.length,
      settings,
      cost: price?.cost ?? null,
      priceError: price?.priceError ?? null,
      text: confirmText(regs.length, settings, years, price),
    };
  };

  /**
   * The batch as shown: its counts read from the launches as they stand, and its state from them by the one rule
   * of every plan (outcomes.ts): rows waiting for a confirmation make it "Waiting for confirmation (n)", never
   * "Completed"; a state a person set (planning, planned, paused, cancelled) stays as set.
   */
  const toBatch = (
    b: BatchRow,
    counts: Map<LaunchRowStatus, number> | undefined,
    confirmation: LaunchBatch['confirmation'],
  ): LaunchBatch => {
    const c = Object.fromEntries(LAUNCH_ROW_STATUSES.map((s) => [s, counts?.get(s) ?? 0])) as LaunchBatch['counts'];
    const tally = planTallyOf('launches', Object.entries(c));
    const fromRows = ['running', 'waiting_for_confirmation', 'completed', 'completed_with_failures'].includes(b.state);
    const state: LaunchBatchState = fromRows || (b.state === 'failed' && !b.error) ? planStateOf(tally) : b.state;
    return {
      _id: b.id,
      batchNo: b.batchNo,
      state,
      stateText: stateText(state, tally),
      settings: b.settings,
      confirmCostly: b.confirmCostly,
      error: b.error,
      createdBy: b.createdBy,
      createdAt: b.createdAt.toISOString(),
      counts: c,
      total: Object.values(c).reduce((a, n) => a + n, 0),
      confirmation: c.needs_confirmation ? confirmation : null,
    };
  };
  /** The batch on its own page: what Confirm all covers, with the registrations' total cost. */
  const shown = async (b: BatchRow) => {
    const [counts, waiting] = await Promise.all([repo.rowCounts([b.id]), repo.waitingOf([b.id])]);
    return toBatch(b, counts.get(b.id), await confirmationOf(b, waiting.get(b.id) ?? [], true));
  };

  /**
   * The names of the input: pasted one per line, or CSV rows with their overrides resolved to ids. Every bad line
   * is reported at once, each with its number (at most LAUNCH_BAD_LINES_SHOWN of them named), not one per attempt.
   */
  async function rowsOf(input: LaunchBatchInput): Promise<{ domainName: string; overrides: Overrides }[]> {
    const out: { domainName: string; overrides: Overrides }[] = [];
    const seen = new Set<string>();
    const bad: string[] = [];
    const field: 'names' | 'csv' = input.csv?.trim() ? 'csv' : 'names';
    const add = (line: number, domainName: string, overrides: Overrides) => {
      const ascii = toAsciiDomain(domainName);
      if (!ascii) return void bad.push(MESSAGES.badName(line, domainName));
      if (seen.has(ascii)) return;
      seen.add(ascii);
      if (out.length >= LAUNCH_BATCH_MAX) throw new ValidationError(MESSAGES.tooMany, { [field]: MESSAGES.tooMany });
      out.push({ domainName: ascii, overrides });
    };
    if (field === 'csv') {
      const lines = parseCsv(input.csv!, LAUNCH_BATCH_MAX + 1);
      const header = (lines[0] ?? []).map((h) => h.trim());
      const col = (name: string) => header.indexOf(name);
      if (col('domainName') < 0 || header.some((h) => !(LAUNCH_CSV_COLUMNS as readonly string[]).includes(h)))
        throw new ValidationError(MESSAGES.csvHeader, { csv: MESSAGES.csvHeader });
      const lookups: [string, (v: string) => Promise<string | null>, keyof Overrides, (v: string) => string][] = [
        ['server', repo.serverIdByIp, 'serverId', MESSAGES.noServer],
        ['brand', repo.brandIdByName, 'brandId', MESSAGES.noBrand],
        ['cloud', repo.cloudIdByEmail, 'cloudId', MESSAGES.noCloud],
        ['copyFrom', (v) => repo.domainIdByName(toAsciiDomain(v) ?? v), 'copyFromDomainId', MESSAGES.noCopyFrom],
      ];
      for (const [i, cells] of lines.slice(1).entries()) {
        const line = i + 2;
        const cell = (name: string) => (col(name) >= 0 ? (cells[col(name)] ?? '').trim() : '');
        const o: Overrides = {};
        const wrong: string[] = [];
        for (const [name, find, key, missing] of lookups) {
          const v = cell(name);
          if (!v) continue;
          const id = await find(v);
          if (id) (o as Record<string, string>)[key] = id;
          else wrong.push(missing(v));
        }
        const ssl = cell('sslMode');
        if (ssl) {
          const parsed = LaunchBatchRowInputSchema.shape.sslMode.safeParse(ssl);
          if (parsed.success) o.sslMode = parsed.data;
          else wrong.push(MESSAGES.badSsl(ssl));
        }
        if (wrong.length) bad.push(`Line ${line}: ${wrong.join('; ')}`);
        else add(line, cell('domainName'), o);
      }
    } else {
      (input.names ?? '').split(/\r?\n/).forEach((n, i) => n.trim() && add(i + 1, n.trim(), {}));
    }
    if (bad.length) {
      const message = MESSAGES.badLines(bad);
      throw new ValidationError(message, { [field]: message });
    }
    if (!out.length) throw new ValidationError('No names to launch', { names: 'No names to launch' });
    return out;
  }

  /** One name's launch input: the batch's settings with the row's overrides. */
  const inputOf = (b: BatchRow, r: Pick<LaunchBatchRowRow, 'domainName' | 'overrides'>, dryRun: boolean) => {
    const { copyFromDomainId, ...rest } = r.overrides as Overrides;
    return {
      ...b.settings,
      ...rest,
      content: copyFromDomainId ? { type: 'copy' as const, fromDomainId: copyFromDomainId } : b.settings.content,
      domainName: r.domainName,
      confirmCostly: b.confirmCostly,
      dryRun,
    } as LaunchInputParsed;
  };

  // The batch's jobs plan and start launches with the rules of whoever queued them (decision 064); the batch's id
  // and number name the job (jobOwner).
  const jobExtra = (actor: Actor, b: { id: string; planNo: number }): BatchJobPayload => ({
    batchId: b.id,
    batchNo: b.planNo,
    rules: actor.rules,
  });
  const enqueue = async (b: BatchRow, kind: string, actor: Actor) => {
    await deps.plans.startJob(b, kind, actor, jobExtra(actor, b));
    return (await repo.findBatch(b.id)) ?? b;
  };
  const verbs = createPlanVerbs(deps.plans, audit, {
    run: BATCH_RUN,
    find: load,
    show: shown,
    cancelFrom: ['planning', 'planned', 'running', 'paused', 'waiting_for_confirmation'],
    audit: {
      entity: 'launch_batches',
      noKey: 'batchNo',
      actions: {
        run: 'run_launch_batch',
        pause: 'pause_launch_batch',
        resume: 'resume_launch_batch',
        cancel: 'cancel_launch_batch',
      },
    },
    refuse: {
      code: 'launch_batch',
      notPlanned: MESSAGES.notRunnable,
      notRunnable: (state) => (state === 'paused' ? MESSAGES.notPaused : MESSAGES.notRunnable),
      notRunning: () => MESSAGES.notRunning,
      notPaused: () => MESSAGES.notPaused,
      finished: () => MESSAGES.finished,
    },
    jobExtra,
  });
  /** A job's batch, and whom its launches are planned and started as (the rules of whoever queued the job). */
  const jobBatch = async ({ batchId, rules }: BatchJobPayload) => {
    const b = await repo.findBatch(batchId);
    if (!b) throw new PermanentJobError(MESSAGES.notFound);
    const actor: Actor = { userId: null, username: b.createdBy, rules: rules ?? RULES_OF_OLD_RUNS, requestId: null };
    return { b, actor };
  };

  /** What the "Plan or outcome" column says: the row's state as it stands, not the plan it started from. */
  const rowMessage = (
    status: LaunchRowStatus,
    message: string | null,
    launchError: string | null,
    stages: { key: string; state: string; detail?: string | null }[] | null,
  ) => {
    if (status === 'needs_confirmation') {
      const s = stages?.find((x) => x.state === 'needs_confirmation');
      return `Waiting for confirmation: ${s?.detail ?? 'the next stage costs money'}`;
    }
    if (status === 'done') return 'Live: every stage done';
    if (status === 'failed') return launchError ?? message;
    if (status === 'running') return 'Launching';
    return message;
  };

  /** A row's status from its launch's state (none while the launch goes on). */
  const statusOfLaunch: Partial<Record<LaunchState, LaunchRowStatus>> = {
    completed: 'done',
    failed: 'failed',
    cancelled: 'cancelled',
    needs_confirmation: 'needs_confirmation',
  };

  /**
   * One name of the run: its launch started (unless it has one: a resumed run follows it again), then followed to
   * its end. The launch runs as its own job, so a pause stops only the following.
   */
  const launchOne = async (
    b: BatchRow,
    r: LaunchBatchRowRow,
    actor: Actor,
    signal: AbortSignal,
  ): Promise<ItemResult> => {
    let launchId = r.launchId;
    if (!launchId) {
      try {
        const made = await deps.launches.create(inputOf(b, r, false), actor);
        if (!('launch' in made)) return { status: 'failed', reason: MESSAGES.notStarted };
        launchId = made.launch._id;
        await repo.updateRow(b.id, r.seq, { launchId, message: null });
      } catch (err) {
        if (isConnectionError(err) || signal.aborted) throw err;
        return { status: 'failed', reason: messageOf(err) };
      }
    }
    for (;;) {
      const s = await repo.launchState(launchId);
      const status = s ? statusOfLaunch[s.state] : 'failed';
      if (status) return { status, reason: s?.error ?? (s ? null : MESSAGES.launchGone) };
      await sleep(deps.pollMs, signal);
    }
  };

  return {
    async create(input: LaunchBatchInputParsed, actor: Actor): Promise<LaunchBatch> {
      const rows = await rowsOf(input);
      const b = await repo.insertBatch(
        {
          settings: input.settings,
          confirmCostly: !!input.confirmCostly,
          state: 'planning',
          createdBy: actor.username,
        },
        rows.map((r) => ({
          domainName: r.domainName,
          domainNameUnicode: unicodeOf(r.domainName),
          overrides: r.overrides as Record<string, unknown>,
          status: 'pending' as const,
        })),
      );
      await recordNames(actor, 'create_launch_batch', b.id, rows.length);
      return shown(await enqueue(b, LAUNCH_BATCH_PLAN_JOB, actor));
    },

    async list(page: number): Promise<ListResult<LaunchBatch>> {
      const r = await repo.listBatches(page);
      const ids = r.items.map((b) => b.id);
      const [counts, waiting] = await Promise.all([repo.rowCounts(ids), repo.waitingOf(ids)]);
      // The list reads no prices (a Namecheap call per batch); the batch's own page does.
      const items = await Promise.all(
        r.items.map(async (b) => toBatch(b, counts.get(b.id), await confirmationOf(b, waiting.get(b.id) ?? [], false))),
      );
      return { items, itemsCount: r.itemsCount };
    },

    get: async (id: string) => shown(await load(id)),

    async rows(id: string, q: LaunchBatchRowsQuery): Promise<ListResult<LaunchBatchRow>> {
      await load(id);
      const r = await repo.rowsPage(id, q);
      return {
        items: r.items.map(({ row, status, stages, launchError }) => ({
          seq: row.seq,
          domainName: row.domainName,
          domainNameUnicode: row.domainNameUnicode,
          overrides: row.overrides as Record<string, unknown>,
          status,
          message: rowMessage(status, row.message, launchError, stages),
          launchId: row.launchId,
          progress: stages ? progressOf(stages) : null,
        })),
        itemsCount: r.itemsCount,
      };
    },

    run: (id: string, actor: Actor) => verbs.run(id, actor),
    /** No new name starts; the launches under way go on (their own jobs) and are followed again on Resume. */
    pause: verbs.pause,
    resume: verbs.resume,

    /** Stops the batch: names not started are cancelled, launches under way are cancelled (done stages stay). */
    cancel: (id: string, actor: Actor) =>
      verbs.cancel(id, actor, async () => {
        // The engine ended the names not started; the launches under way or waiting for a confirmation end too.
        for (const r of await repo.rowsWithOpenLaunch(id, LAUNCH_BATCH_MAX)) {
          await deps.launches.cancel(r.launchId!, actor).catch(() => undefined);
          if (r.status !== 'cancelled') await repo.updateRow(id, r.seq, { status: 'cancelled' });
        }
      }),

    /** The run's job is resumed on the Jobs screen: the batch runs again, or the resume is refused. */
    jobResuming: verbs.jobResuming,
    jobCancelling: verbs.jobCancelling,
    /** The job ended cancelled, whichever way: the batch reads as its job, a paused one keeps its names to follow. */
    async jobStopped(id: string, which: 'plan' | 'run') {
      const b = await deps.plans.jobStopped(BATCH_RUN, id, which);
      return b ? { batchId: id, state: b.state } : undefined;
    },
    jobEnded: verbs.jobEnded,

    /**
     * Confirms every launch of the batch that waits for its costly stage (what it buys is the batch's
     * `confirmation`, shown first); the batch runs again and follows them.
     */
    async confirmAll(id: string, actor: Actor) {
      const b = await load(id);
      if (b.state === 'cancelled' || b.state === 'planning') throw new ConflictError(MESSAGES.finished);
      const rows = await repo.rowsWaiting(id);
      if (!rows.length) throw new ConflictError(MESSAGES.nothingToConfirm);
      let n = 0;
      for (const r of rows) {
        try {
          await deps.launches.confirm(r.launchId!, actor);
          // Pending with its launch: the batch's run follows it (the row reads as its launch meanwhile).
          await repo.updateRow(id, r.seq, { status: 'pending', message: null });
          n++;
        } catch (err) {
          // Confirmed or cancelled on its own page meanwhile: the live counts show where it is.
          if (!(err instanceof ConflictError)) throw err;
        }
      }
      await recordNames(actor, 'confirm_launch_batch', id, n);
      const again = await repo.transitionBatch(
        id,
        ['waiting_for_confirmation', 'completed', 'completed_with_failures', 'failed'],
        { state: 'running', error: null },
      );
      return shown(again ? await enqueue(again, LAUNCH_BATCH_RUN_JOB, actor) : (await repo.findBatch(id))!);
    },

    /** Every failed name again: its launch retries its failed stage; a name refused before starting starts anew. */
    async retryFailed(id: string, actor: Actor) {
      const b = await load(id);
      if (b.state === 'cancelled' || b.state === 'planning') throw new ConflictError(MESSAGES.finished);
      // Read past each row once tried: a row whose launch refuses the retry stays failed, and is not tried again.
      const rows = await allPages((after, limit) => repo.rowsIn(id, ['failed'], after, limit));
      for (const r of rows) {
        try {
          if (r.launchId) await deps.launches.retry(r.launchId, null, actor);
          await repo.updateRow(id, r.seq, { status: 'pending', message: null });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          await repo.updateRow(id, r.seq, { status: 'failed', message: err.message });
        }
      }
      const n = rows.length;
      if (!n) throw new ConflictError(MESSAGES.noFailed);
      await recordNames(actor, 'retry_launch_batch', id, n);
      const again = await repo.transitionBatch(
        id,
        ['completed', 'completed_with_failures', 'waiting_for_confirmation', 'failed', 'paused', 'running'],
        { state: 'running', error: null },
      );
      return shown(
        again && b.state !== 'running'
          ? await enqueue(again, LAUNCH_BATCH_RUN_JOB, actor)
          : (await repo.findBatch(id))!,
      );
    },

    /** The plan job: each name planned like a single launch (a few at a time), blocked names marked. */
    async planJob(ctx: JobContext<BatchJobPayload>) {
      const { b, actor } = await jobBatch(ctx.payload);
      const counts = (await repo.rowCounts([b.id])).get(b.id);
      const total = [...(counts?.values() ?? [])].reduce((a, n) => a + n, 0);
      // Rows still pending without a plan message are the ones not planned yet (a resumed job skips the others).
      const rows = await repo.unplannedRows(b.id, LAUNCH_BATCH_MAX);
      let blocked = 0;
      await deps.plans.walk(
        rows.map((r) => ({ ...r, lane: null })),
        ctx,
        {
          perLane: deps.concurrency,
          from: total - rows.length,
          report: (done) => ({ done, total, unit: 'names', message: `Planned ${done} of ${total}` }),
        },
        async (r) => {
          let message: string;
          let status: LaunchRowStatus = 'blocked';
          try {
            const p = await deps.launches.plan(inputOf(b, r, true), actor);
            const steps = (...outcomes: string[]) => p.steps.filter((s) => outcomes.includes(s.outcome)).length;
            message = p.blockers.length
              ? p.blockers.map(blockerText).join('; ')
              : `${plural(steps('run', 'confirm'), 'stage')} to run, ${steps('done')} already done`;
            if (!p.blockers.length) status = 'pending';
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            message = err.message;
          }
          if (status === 'blocked') blocked++;
          await repo.updateRow(b.id, r.seq, { status, message });
          return true;
        },
      );
      await repo.transitionBatch(b.id, ['planning'], { state: 'planned' });
      return { batchId: b.id, planned: rows.length, blocked };
    },

    /** The run job: the engine's run, `concurrency` names at a time, each launched and followed to its end. */
    async runJob(ctx: JobContext<BatchJobPayload>) {
      const { b, actor } = await jobBatch(ctx.payload);
      const ran = await deps.plans.run(
        BATCH_RUN,
        b.id,
        ctx,
        (row) => launchOne(b, launchRowOf(row), actor, ctx.signal),
        {
          perLane: deps.concurrency,
        },
      );
      return ran.stopped ? { batchId: b.id, state: ran.stopped } : { batchId: b.id, tally: ran.tally };
    },
  };
}
export type LaunchBatchesService = ReturnType<typeof createLaunchBatchesService>;
