export const GENERIC_ERROR_MESSAGE = 'Something went wrong';

/** The second spec document's fallback messages (§8), used when the server gives no message. */
export const FALLBACK_MESSAGES = {
  fetch: 'Failed to fetch data',
  createDomain: 'Failed to create domain',
  deleteDomain: 'Failed to delete domain',
  startParsing: 'Failed to start parsing',
} as const;

/** A failed call: status 0 means the network or the response body failed. */
export class ApiError extends Error {
  readonly status: number;
  readonly code?: string;
  readonly fields?: Record<string, string>;
  readonly requestId?: string;
  /** The answer's `data`, when an error carries one (a 409 names the other party there: jobId, jobNo). */
  readonly data?: Record<string, unknown>;
  /** True when the message is the server's own; false when it is a fallback. */
  readonly fromServer: boolean;

  constructor(
    status: number,
    message: string,
    extra: {
      code?: string;
      fields?: Record<string, string>;
      requestId?: string;
      fromServer?: boolean;
      data?: Record<string, unknown>;
    } = {},
  ) {
    super(message || GENERIC_ERROR_MESSAGE);
    this.name = 'ApiError';
    this.status = status;
    this.code = extra.code;
    this.fields = extra.fields;
    this.requestId = extra.requestId;
    this.data = extra.data;
    this.fromServer = Boolean(message) && (extra.fromServer ?? false);
  }
}

/**
 * The error with `fallback` as its message when the server gave none (a network failure, an empty or
 * unreadable answer); any other error as it is.
 */
export function withFallback(error: unknown, fallback: string | undefined): unknown {
  if (!fallback || !(error instanceof ApiError) || error.fromServer) return error;
  return new ApiError(error.status, fallback, { code: error.code, fields: error.fields, requestId: error.requestId });
}

/** The message to show for any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return GENERIC_ERROR_MESSAGE;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Builds the ApiError for a non-2xx answer from its (possibly missing or malformed) JSON body. */
export function toApiError(status: number, body: unknown): ApiError {
  if (!isRecord(body)) return new ApiError(status, GENERIC_ERROR_MESSAGE);
  const fromServer = typeof body.message === 'string' && body.message.trim() !== '';
  const message = fromServer ? (body.message as string) : GENERIC_ERROR_MESSAGE;
  let fields: Record<string, string> | undefined;
  if (isRecord(body.fields)) {
    fields = {};
    for (const [key, value] of Object.entries(body.fields)) {
      if (typeof value === 'string') fields[key] = value;
    }
  }
  return new ApiError(status, message, {
    code: typeof body.code === 'string' ? body.code : undefined,
    fields,
    requestId: typeof body.requestId === 'string' ? body.requestId : undefined,
    fromServer,
    data: isRecord(body.data) ? body.data : undefined,
  });
}
