export const GENERIC_ERROR_MESSAGE = 'Something went wrong';

/** A failed call: status 0 means the network or the response body failed. */
export class ApiError extends Error {
  readonly status: number;
  readonly code?: string;
  readonly fields?: Record<string, string>;
  readonly requestId?: string;

  constructor(
    status: number,
    message: string,
    extra: { code?: string; fields?: Record<string, string>; requestId?: string } = {},
  ) {
    super(message || GENERIC_ERROR_MESSAGE);
    this.name = 'ApiError';
    this.status = status;
    this.code = extra.code;
    this.fields = extra.fields;
    this.requestId = extra.requestId;
  }
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
  const message = typeof body.message === 'string' && body.message.trim() ? body.message : GENERIC_ERROR_MESSAGE;
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
  });
}
