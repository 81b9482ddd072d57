import { STATUS_CODES } from 'node:http';
import { UpstreamError } from '../../http/errors.ts';

/**
 * A channel's provider refused or failed a message. `temporary` decides whether delivery retries (timeouts,
 * 5xx, 429, a refused connection) or gives up (bad credentials, a refused recipient); `retryAfterSeconds` is the
 * provider's own wait (Telegram's `parameters.retry_after`).
 */
export class ChannelSendError extends UpstreamError {
  constructor(
    provider: string,
    message: string,
    readonly temporary: boolean,
    opts: { timeout?: boolean; upstreamStatus?: number; retryAfterSeconds?: number } = {},
  ) {
    super(provider, `${provider}: ${message}`, { timeout: opts.timeout, upstreamStatus: opts.upstreamStatus });
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
  readonly retryAfterSeconds?: number;
}

/** At most `max` characters of a provider's answer, on one line. */
export const excerpt = (s: string, max = 300) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
};

/** What is kept of a receiver's answer: its status and the standard reason phrase, never its own words. */
export const statusLine = (status: number) => `HTTP ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;

/** Reads at most `limit` bytes of a body (the rest is dropped), so a huge answer cannot fill memory. */
export async function readBounded(body: ReadableStream<Uint8Array> | null, limit = 64 * 1024): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = limit - size;
      chunks.push(value.length > room ? value.subarray(0, room) : value);
      size += Math.min(value.length, room);
      if (size >= limit) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export const isTimeout = (err: unknown) => {
  const name = (err as { name?: string } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
};
