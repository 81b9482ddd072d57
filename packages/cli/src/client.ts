import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api/openapi.gen.ts';
import type { Connection } from './config.ts';
import { CliError } from './errors.ts';

/** Requests typed from the API's OpenAPI document (src/api/openapi.gen.ts): a route change that breaks one fails tsc. */
export type Api = Client<paths>;
/** A GET route's query, as the API's document types it (the server checks each value again). */
export type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? NonNullable<Q>
  : never;

/** One request's longest wait (an export page may wait for Cloudflare budget slots). */
const REQUEST_TIMEOUT_MS = 300_000;

export function apiClient(conn: Connection, timeoutMs = REQUEST_TIMEOUT_MS): Api {
  return createClient<paths>({
    baseUrl: conn.url,
    headers: { authorization: `Bearer ${conn.token}` },
    fetch: (req: Request) => fetch(req, { signal: AbortSignal.any([req.signal, AbortSignal.timeout(timeoutMs)]) }),
  });
}

type Body = { message?: unknown; code?: unknown; fields?: unknown } | undefined;

/** The server's refusal as one clear sentence naming the server's origin only (never the token). */
export function errorOf(origin: string, status: number, body: unknown): CliError {
  const b = (typeof body === 'object' && body ? body : undefined) as Body;
  if (status === 401)
    return new CliError(`The token was refused by ${origin}: revoked or expired; run fleetdesk login`);
  const msg = typeof b?.message === 'string' ? b.message.slice(0, 1000) : `HTTP ${status}`;
  const fields =
    b?.fields && typeof b.fields === 'object'
      ? Object.entries(b.fields as Record<string, unknown>)
          .slice(0, 20)
          .map(([k, v]) => `\n  ${k}: ${String(v)}`)
          .join('')
      : '';
  if (status === 403) return new CliError(`${origin} refused: ${msg}`);
  if (status >= 500) return new CliError(`${origin} failed (HTTP ${status}): ${msg}`);
  return new CliError(`${msg}${fields}`);
}

const reasonOf = (err: unknown): string => {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'no answer in time';
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return err instanceof Error ? err.message : String(err);
};

/** The `data` of the API's `{ data }` answer, or a CliError: unreachable, refused, or failed. */
export async function must<T>(
  origin: string,
  request: Promise<{ data?: { data: T }; error?: unknown; response: Response }>,
): Promise<T> {
  let r: Awaited<typeof request>;
  try {
    r = await request;
  } catch (err) {
    throw new CliError(`Cannot reach ${origin}: ${reasonOf(err)}`);
  }
  if (r.response.ok && r.data !== undefined) return r.data.data;
  throw errorOf(origin, r.response.status, r.error);
}
