/** Postgres error details, whichever driver raised them (drizzle may wrap the driver's error in `cause`). */
export function pgError(err: unknown): { code?: string; constraint?: string } | undefined {
  let e: any = err;
  for (let i = 0; i < 3 && e; i++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return { code: e.code, constraint: e.constraint };
    e = e.cause;
  }
  return undefined;
}

export const isUniqueViolation = (err: unknown, constraint?: string) => {
  const p = pgError(err);
  return p?.code === '23505' && (!constraint || p.constraint === constraint);
};

export const isForeignKeyViolation = (err: unknown) => pgError(err)?.code === '23503';

/**
 * A data exception (SQLSTATE class 22: a NUL in text, a number out of range, text that is not a uuid, …): the
 * input was bad, not the server, so it answers 400. Schemas refuse these first; this is the net under them.
 */
export const isDataException = (err: unknown) => pgError(err)?.code?.startsWith('22') ?? false;

/** SQLSTATEs of a connection the server ended or refused: shutdown, crash, starting up, class 08 (connection). */
const CONNECTION_CODES = new Set(['57P01', '57P02', '57P03']);
const CONNECTION_SYSCALL_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTCONN',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|terminating connection due to administrator command|the database system is (shutting down|starting up|in recovery mode)/i;

/**
 * The statement failed because its connection was lost or refused (PostgreSQL restarted or failed over, its
 * backends terminated, a network blip), not because of the statement: the same statement may succeed on a new
 * connection. Looks through drizzle's `cause` chain.
 */
export function isConnectionError(err: unknown): boolean {
  let e: any = err;
  for (let i = 0; i < 4 && e; i++) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && (CONNECTION_CODES.has(code) || code.startsWith('08') || CONNECTION_SYSCALL_CODES.has(code)))
      return true;
    if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return true;
    e = e.cause;
  }
  return false;
}

/**
 * Runs `fn` again while it fails on a lost connection, waiting 250 ms doubling to 5 s between tries, for up to
 * `maxMs` (then, or on any other error, or once `signal` is aborted, it throws the error). Only for work that is
 * safe to repeat: a write that re-reads first, or whose WHERE makes a second run change nothing.
 */
export async function untilConnected<T>(
  fn: () => Promise<T>,
  o: { signal?: AbortSignal; maxMs?: number; onRetry?: (err: unknown, delayMs: number) => void } = {},
): Promise<T> {
  const until = Date.now() + (o.maxMs ?? 120_000);
  let delay = 250;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!isConnectionError(err) || o.signal?.aborted || Date.now() + delay > until) throw err;
      o.onRetry?.(err, delay);
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5_000);
    }
  }
}

/**
 * The net under promises nobody awaits (pg-boss records a job's end without awaiting it): a rejection for a lost
 * connection is logged and the process goes on; any other unhandled rejection still ends it, as by default.
 */
export function survivesConnectionLoss(warn: (obj: object, msg: string) => void) {
  process.on('unhandledRejection', (reason) => {
    if (!isConnectionError(reason)) throw reason;
    warn(
      { err: { message: reason instanceof Error ? reason.message : String(reason) } },
      'statement lost with its connection',
    );
  });
}
