import { ApiError, GENERIC_ERROR_MESSAGE, toApiError } from './api-error.ts';
import { clearToken, getToken } from './token.ts';

export type QueryValue = string | number | boolean | null | undefined;
export type QueryParams = Record<string, QueryValue>;

export const API_PREFIX = (import.meta.env.VITE_API_PREFIX ?? '').replace(/\/+$/, '');

/** Prefix + path + the query, skipping empty values. */
export function buildUrl(path: string, query?: QueryParams, prefix = API_PREFIX): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const qs = params.toString();
  return `${prefix}${path}${qs ? `?${qs}` : ''}`;
}

let handleUnauthorized: (() => void) | null = null;

/** The app decides what a 401 means (clear the session, go to /login). */
export function setUnauthorizedHandler(handler: (() => void) | null) {
  handleUnauthorized = handler;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: QueryParams;
  body?: unknown;
  signal?: AbortSignal;
  /** Login answers 401 for bad credentials: that must not end the session. */
  ignoreUnauthorized?: boolean;
  accept?: string;
  /** A body sent as it is, with its own content type (a file's text), instead of JSON. */
  raw?: { contentType: string; data: Blob | string };
}

/** A raw call with the token and JSON body; throws ApiError(0) on a network failure. */
export async function apiFetch(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = token;
  let body: string | Blob | undefined;
  if (options.raw) {
    headers['Content-Type'] = options.raw.contentType;
    body = options.raw.data;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body,
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, GENERIC_ERROR_MESSAGE);
  }
  if (response.status === 401 && !options.ignoreUnauthorized) {
    clearToken();
    handleUnauthorized?.();
  }
  return response;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  return JSON.parse(text) as unknown;
}

/** A call whose answer is JSON; returns the whole body, throws ApiError on a non-2xx or unreadable answer. */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await apiFetch(path, options);
  let body: unknown;
  try {
    body = await readJson(response);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(response.ok ? 0 : response.status, GENERIC_ERROR_MESSAGE);
  }
  if (!response.ok) throw toApiError(response.status, body);
  return body as T;
}

/** Unwraps the `{ data }` envelope. */
async function requestData<T>(path: string, options: RequestOptions): Promise<T> {
  const body = await apiRequest<{ data: T } | undefined>(path, options);
  return body?.data as T;
}

export const api = {
  get: <T>(path: string, query?: QueryParams, signal?: AbortSignal) => requestData<T>(path, { query, signal }),
  post: <T>(path: string, body?: unknown) => requestData<T>(path, { method: 'POST', body }),
  patch: <T>(path: string, body: unknown) => requestData<T>(path, { method: 'PATCH', body }),
  put: <T>(path: string, body: unknown) => requestData<T>(path, { method: 'PUT', body }),
  delete: <T = unknown>(path: string) => requestData<T>(path, { method: 'DELETE' }),
  /** POSTs a body as it is (a file's text) and reads the JSON answer. */
  postRaw: <T>(path: string, raw: { contentType: string; data: Blob | string }) =>
    requestData<T>(path, { method: 'POST', raw }),
};
