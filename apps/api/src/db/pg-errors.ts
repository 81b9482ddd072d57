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
