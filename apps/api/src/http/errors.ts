export type FieldErrors = Record<string, string>;

/** A failure with a user-safe message; the error handler turns it into the envelope. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
  /** More top-level fields of the error envelope (e.g. a provider's own answer); never message, code or fields. */
  envelope?: Record<string, unknown>;
}

export class ValidationError extends AppError {
  constructor(message: string, fields?: FieldErrors, code = 'validation_error') {
    super(400, code, message, fields);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'You are not signed in', code = 'unauthorized') {
    super(401, code, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You do not have permission to do this', code = 'forbidden') {
    super(403, code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found', code = 'not_found') {
    super(404, code, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, fields?: FieldErrors, code = 'conflict') {
    super(409, code, message, fields);
  }
}

export class RateLimitedError extends AppError {
  constructor(message: string, retryAfterSeconds: number, code = 'rate_limited') {
    super(429, code, message, undefined, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/**
 * A provider failed. The message names the provider ("Cloudflare: 1061 example.com already exists").
 * 504 for timeouts, 502 for everything else.
 */
export class UpstreamError extends AppError {
  constructor(
    readonly provider: string,
    message: string,
    opts: { timeout?: boolean; code?: string; upstreamStatus?: number; upstreamCode?: string | number } = {},
  ) {
    super(opts.timeout ? 504 : 502, opts.code ?? (opts.timeout ? 'upstream_timeout' : 'upstream_error'), message);
    this.upstreamStatus = opts.upstreamStatus;
    this.upstreamCode = opts.upstreamCode;
  }
  readonly upstreamStatus?: number;
  readonly upstreamCode?: string | number;
}
