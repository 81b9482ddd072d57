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
