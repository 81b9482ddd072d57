import { indexNowOf } from './indexnow.ts';

/**
 * How a run over many domains (a fleet run, or any job that counts domains) ended, computed in one place and
 * worded in one place, so the plan page, the fleet list, the Jobs screen, the domain's job banner and the API
 * say the same thing. A state is never greener than its counts.
 */
export const TERMINAL_STATES = ['completed', 'completed_with_failures', 'failed', 'cancelled'] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];

/** What a run did, domain by domain: changed, already as wanted, skipped (changed meanwhile), failed. */
export type RunTally = {
  /** Domains the run works on. */
  total: number;
  changed: number;
  same: number;
  skipped: number;
  failed: number;
  /** Stopped before a costly step, waiting for a person to confirm it (a launch batch's rows). */
  waiting?: number;
  /** Not reached: cancelled, or still to do. */
  cancelled?: number;
  /**
   * Of `changed`: changed at the provider, but the check the fix was for still fails for another reason (a health
   * fix). Counted as changed (something was done) and named apart, so the run is not read as all fixed.
   */
  stillFailing?: number;
  pending?: number;
};

/**
 * Completed (nothing failed), completed with failures (some failed, or some changed but still failing), failed
 * (some failed and none changed).
 */
export function terminalStateOf(t: RunTally): Exclude<TerminalState, 'cancelled'> {
  if (t.failed === 0) return t.stillFailing ? 'completed_with_failures' : 'completed';
  return t.changed === 0 ? 'failed' : 'completed_with_failures';
}

/** Every kind of plan: fleet runs (health fixes are fleet runs too), imports, launch batches. */
export const PLAN_KINDS = ['fleet', 'imports', 'launches'] as const;
export type PlanKind = (typeof PLAN_KINDS)[number];
/** `changed_failing`: counted as changed, and as still failing too (a fix made, its check failing for another reason). */
type Bucket = 'changed' | 'changed_failing' | 'same' | 'skipped' | 'failed' | 'waiting' | 'cancelled' | 'pending';
/**
 * What each item status of each kind of plan counts as: the one table the plans' counts come from. An item
 * being worked on (running) is not done yet; a row waiting for a confirmation is neither done nor failed.
 */
export const PLAN_ITEM_BUCKETS: Record<PlanKind, Record<string, Bucket>> = {
  fleet: {
    pending: 'pending',
    running: 'pending',
    done: 'changed',
    changed_failing: 'changed_failing',
    same: 'same',
    skipped: 'skipped',
    failed: 'failed',
    cancelled: 'cancelled',
  },
  imports: {
    pending: 'pending',
    running: 'pending',
    done: 'changed',
    skipped: 'skipped',
    failed: 'failed',
    cancelled: 'cancelled',
  },
  launches: {
    pending: 'pending',
    running: 'pending',
    done: 'changed',
    blocked: 'skipped',
    needs_confirmation: 'waiting',
    failed: 'failed',
    cancelled: 'cancelled',
  },
};

/**
 * Counts one item that ended (or `n` of them) with `status` into a running tally, by the same table as
 * `planTallyOf`: a run's progress moves by the rule its end state is decided by. An item that ends leaves `pending`.
 */
export function countEnded(t: RunTally, kind: PlanKind, status: string, n = 1): void {
  const bucket = PLAN_ITEM_BUCKETS[kind][status];
  if (!bucket) throw new Error(`Unknown ${kind} item status ${status}`);
  if (bucket === 'changed_failing') {
    t.changed += n;
    t.stillFailing = (t.stillFailing ?? 0) + n;
  } else if (bucket === 'pending') return;
  else t[bucket] = (t[bucket] ?? 0) + n;
  t.pending = Math.max(0, (t.pending ?? 0) - n);
}

/** The tally of a plan from its items' statuses and their numbers (unknown statuses are a bug: thrown). */
export function planTallyOf(
  kind: PlanKind,
  counts: Iterable<readonly [string, number]>,
): Required<Omit<RunTally, 'stillFailing'>> & Pick<RunTally, 'stillFailing'> {
  const t: Required<RunTally> = {
    total: 0,
    changed: 0,
    same: 0,
    skipped: 0,
    failed: 0,
    waiting: 0,
    cancelled: 0,
    pending: 0,
    stillFailing: 0,
  };
  for (const [status, n] of counts) {
    const bucket = PLAN_ITEM_BUCKETS[kind][status];
    if (!bucket) throw new Error(`Unknown ${kind} item status ${status}`);
    t.total += n;
    if (bucket === 'changed_failing') {
      t.changed += n;
      t.stillFailing += n;
    } else t[bucket] += n;
  }
  // Named only where some are (the shape every other plan's tally has stays as it was).
  if (!t.stillFailing) {
    const { stillFailing: _none, ...rest } = t;
    return rest;
  }
  return t;
}

/**
 * The state of a plan from its items, the same rule for every kind: items still to do, it runs; rows waiting
 * for a confirmation, it waits (never "completed" with nothing done); else completed, completed with failures
 * or failed by `terminalStateOf`. A plan a person cancelled stays cancelled (the caller knows that, not the items).
 */
export type PlanState = 'running' | 'waiting_for_confirmation' | Exclude<TerminalState, 'cancelled'>;
export function planStateOf(t: RunTally): PlanState {
  if (t.pending) return 'running';
  if (t.waiting) return 'waiting_for_confirmation';
  return terminalStateOf(t);
}

/** The words of every state a job or a plan can be in. */
export const STATE_LABELS: Record<string, string> = {
  queued: 'Queued',
  planning: 'Planning',
  planned: 'Planned',
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  completed_with_failures: 'Completed with failures',
  waiting_for_confirmation: 'Waiting for confirmation',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
/** A running job or plan whose cancel was asked for: what the answer says until its worker (or a takeover) ends it. */
export const CANCELLING_TEXT = 'Cancelling…';
export const stateLabel = (state: string) => STATE_LABELS[state] ?? state;

/** Bootstrap's colour for a state: green only for a run where nothing failed. */
export function stateVariant(state: string): 'success' | 'warning' | 'danger' | 'secondary' | 'primary' | 'info' {
  switch (state) {
    case 'completed':
      return 'success';
    case 'completed_with_failures':
      return 'warning';
    case 'failed':
      return 'danger';
    case 'waiting_for_confirmation':
      return 'warning';
    case 'running':
    case 'planning':
      return 'primary';
    case 'queued':
    case 'planned':
      return 'info';
    default:
      return 'secondary';
  }
}

export const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** "3 of 5 domains changed · 1 already matched · 2 failed": every count that is not zero, each apart. */
export function tallyText(t: RunTally): string {
  const parts = [
    `${t.changed.toLocaleString('en-US')} of ${plural(t.total, 'domain')} changed` +
      (t.stillFailing ? ` (${t.stillFailing.toLocaleString('en-US')} still failing)` : ''),
  ];
  if (t.same) parts.push(`${t.same.toLocaleString('en-US')} already matched`);
  if (t.skipped) parts.push(`${t.skipped.toLocaleString('en-US')} skipped`);
  if (t.failed) parts.push(`${t.failed.toLocaleString('en-US')} failed`);
  if (t.waiting) parts.push(`${t.waiting.toLocaleString('en-US')} waiting for confirmation`);
  if (t.cancelled) parts.push(`${t.cancelled.toLocaleString('en-US')} not reached`);
  return parts.join(' · ');
}

/** The state in words, with the failures counted in them: "Completed with failures: 2 of 5 failed". */
export function stateText(state: string, t?: RunTally | null): string {
  if (state === 'waiting_for_confirmation')
    return `${stateLabel(state)} (${(t?.waiting ?? 0).toLocaleString('en-US')})`;
  if (t && (state === 'completed_with_failures' || state === 'failed') && (t.failed || t.stillFailing)) {
    const of = t.total.toLocaleString('en-US');
    const parts: string[] = [];
    if (t.failed) parts.push(`${t.failed.toLocaleString('en-US')} of ${of} failed`);
    if (t.stillFailing)
      parts.push(`${t.stillFailing.toLocaleString('en-US')}${t.failed ? '' : ` of ${of}`} changed but still failing`);
    return `${stateLabel(state)}: ${parts.join(', ')}`;
  }
  return stateLabel(state);
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];
function bytes(n: number): string {
  let unit = 0;
  let v = Math.max(0, n);
  while (v >= 1024 && unit < BYTE_UNITS.length - 1) {
    v /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(v)} B` : `${v.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/** A job as far as its one-sentence result needs it. */
export type JobFacts = {
  kind: string;
  state: string;
  result: Record<string, unknown> | null;
  error: string | null;
};

/** The tally a job's result carries, when it counts domains (fleet runs). */
export function tallyOf(result: Record<string, unknown> | null | undefined): RunTally | null {
  const t = result?.tally as RunTally | undefined;
  return t && typeof t.total === 'number' ? t : null;
}

/** Kinds whose result carries a tally for their end state, but says what it counted (names, URLs, files) itself. */
const OWN_WORDS = new Set(['imports.run', 'domains.parsing', 'domains.copy-content-files']);

/**
 * One sentence that says what a job did: "3 of 5 domains changed, 2 failed: see the plan", "8 URLs in
 * sitemap.xml". The details are a click away (the plan, the domain, the job's card).
 */
export function jobSentence(j: JobFacts): string {
  if (j.state === 'queued' || j.state === 'running') return '';
  const sentence = ownSentence(j);
  // The IndexNow submission after a job's change (decision 075): told beside the job's own outcome, never in it.
  const indexNow = indexNowOf(j.result);
  return indexNow && sentence ? `${sentence} · ${indexNow.message}` : sentence;
}

function ownSentence(j: JobFacts): string {
  const r = j.result ?? {};
  const n = (k: string) => Number(r[k] ?? 0);
  const tally = tallyOf(j.result);
  // An import, a parse and a copy count names, URLs or files in their own words below; their tally decides
  // their state only.
  if (tally && !OWN_WORDS.has(j.kind)) {
    const failed = tally.failed ? `, ${tally.failed.toLocaleString('en-US')} failed: see the plan` : '';
    const still = tally.stillFailing ? ` (${tally.stillFailing.toLocaleString('en-US')} still failing)` : '';
    const same = tally.same ? `, ${tally.same.toLocaleString('en-US')} already matched` : '';
    const skipped = tally.skipped ? `, ${tally.skipped.toLocaleString('en-US')} skipped` : '';
    const waiting = tally.waiting ? `, ${tally.waiting.toLocaleString('en-US')} waiting for confirmation` : '';
    const left =
      tally.cancelled || tally.pending
        ? `, ${((tally.cancelled ?? 0) + (tally.pending ?? 0)).toLocaleString('en-US')} not reached`
        : '';
    return `${tally.changed.toLocaleString('en-US')} of ${plural(tally.total, 'domain')} changed${still}${same}${skipped}${failed}${waiting}${left}`;
  }
  if (j.state === 'cancelled') return j.error ?? 'Cancelled before it finished';
  if (j.state === 'failed') return j.error ?? 'Failed';
  switch (j.kind) {
    case 'fleet.plan': {
      if (r.change === undefined) return `${plural(n('planned'), 'domain')} read`;
      return `${plural(n('planned'), 'domain')} read: ${n('change').toLocaleString('en-US')} will change, ${n('same').toLocaleString('en-US')} already match, ${n('refused').toLocaleString('en-US')} cannot change`;
    }
    case 'domains.generate-sitemap':
      return `${plural(n('urlCount'), 'URL')} in ${((r.files as string[] | undefined) ?? []).join(', ') || 'the sitemap'}`;
    case 'domains.copy-content-files': {
      const failed =
        typeof r.failedCount === 'number' ? r.failedCount : ((r.failed as unknown[] | undefined)?.length ?? 0);
      return (
        `${plural(n('files'), 'file')} and ${plural(n('directories'), 'directory', 'directories')} copied ` +
        `(${bytes(n('bytes'))})${failed ? `, ${plural(failed, 'file')} failed` : ''}`
      );
    }
    case 'domains.replacement':
      return 'Every step done';
    case 'domains.parsing':
      return (
        `${plural(n('pagesDone'), 'page')} and ${plural(n('assets'), 'requisite')} saved (${bytes(n('bytes'))})` +
        (n('errors') ? `, ${plural(n('errors'), 'URL')} failed` : '')
      );
    case 'servers.health-check':
      return `${plural(n('servers'), 'server')} checked: ${n('online')} online, ${n('offline')} offline, ${n('skipped')} skipped`;
    case 'proxies.health-check':
      return `${plural(n('proxies'), 'proxy', 'proxies')} checked: ${n('ok')} working, ${n('failed')} failing`;
    case 'imports.plan':
      return `${plural(n('names'), 'name')} read: see the import`;
    case 'imports.run':
      if (r.total === undefined) return 'Nothing to import';
      return (
        `${n('done').toLocaleString('en-US')} of ${plural(n('total'), 'name')} imported` +
        (n('failed') ? `, ${n('failed').toLocaleString('en-US')} failed: see the import` : '') +
        (n('skipped') ? `, ${n('skipped').toLocaleString('en-US')} skipped` : '')
      );
    case 'zone-files.export':
      return (
        `${plural(n('zones'), 'zone file')} in ${typeof r.fileName === 'string' ? r.fileName : 'the zip'} ` +
        `(${bytes(n('bytes'))})${n('failedCount') ? `, ${plural(n('failedCount'), 'zone')} not read` : ''}`
      );
    case 'health.cycle':
      return typeof r.message === 'string' && r.message
        ? r.message
        : `${plural(n('full') + n('cheap'), 'domain')} checked`;
    case 'traffic.cycle':
      return typeof r.message === 'string' && r.message ? r.message : `Traffic read for ${plural(n('read'), 'domain')}`;
    case 'health.check':
      return `${plural(n('checked'), 'domain')} checked${n('gone') ? `, ${n('gone').toLocaleString('en-US')} gone meanwhile` : ''}`;
    case 'alerts.evaluate':
      return `${plural(n('opened'), 'problem')} opened, ${n('resolved').toLocaleString('en-US')} resolved, ${plural(n('deliveries'), 'message')} queued`;
    case 'alerts.deliver':
      return r.status === 'sent'
        ? `Delivered: ${typeof r.answer === 'string' ? r.answer : 'accepted'}`
        : `Not delivered: ${typeof r.answer === 'string' ? r.answer : String(r.status ?? 'skipped')}`;
    case 'launches.run':
      if (r.state === 'needs_confirmation') return 'Stopped before registering the name: confirm it on the launch';
      if (r.state === 'cancelled') return 'The launch was cancelled';
      return `${typeof r.domainName === 'string' ? r.domainName : 'The site'} is live: ${n('done')} stages done, ${n('already_done')} already done, ${n('skipped')} skipped`;
    case 'launches.batch-plan':
      return `${plural(n('planned'), 'name')} planned, ${n('blocked').toLocaleString('en-US')} blocked: see the batch`;
    case 'launches.batch-run':
      return r.state === 'paused' ? 'Paused: see the batch' : 'Stopped: see the batch';
    default:
      return 'Done';
  }
}
