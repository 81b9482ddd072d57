import { TELEGRAM_API_BASE } from '@fleetdesk/contract';
import { cutText } from '../../lib/text-cut.ts';
import { providerFetch } from '../provider-calls.ts';
import { type DestinationPolicy, destinationAgent, hostOf, refusalOf } from './destination.ts';
import { ChannelSendError, excerpt, isTimeout, readBounded } from './errors.ts';
import { createSpacing, sleep } from './rate-limit.ts';

const PROVIDER = 'Telegram';
/** A 429 asking for at most this long is waited out in place; a longer one goes to the job, which waits it out. */
const MAX_INLINE_WAIT_S = 30;
/** Bot API: a message's text is 1–4096 characters. */
const TEXT_LIMIT = 4096;

type BotAnswer = {
  ok: boolean;
  result?: { message_id?: number; username?: string };
  description?: string;
  error_code?: number;
  parameters?: { retry_after?: number };
};

/**
 * The Bot API client: `sendMessage` within Telegram's limits (1 a second per chat, 20 a minute in a group, 30 a
 * second per bot).
 */
export function createTelegramClient(o: { timeoutMs?: number; destinations?: DestinationPolicy } = {}) {
  const fetch = providerFetch('telegram');
  const spacing = createSpacing();
  const timeoutMs = o.timeoutMs ?? 10_000;
  const dispatcher = destinationAgent(o.destinations ?? { allowPrivate: false });

  async function call(base: string | null, token: string, method: string, body: unknown, signal?: AbortSignal) {
    const url = `${(base ?? TELEGRAM_API_BASE).replace(/\/+$/, '')}/bot${encodeURIComponent(token).replace(/%3A/gi, ':')}/${method}`;
    let res;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        // The Bot API does not redirect; a redirect is an answer like any other (and no token follows it).
        redirect: 'manual',
        dispatcher,
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      if (isTimeout(err) && !signal?.aborted)
        throw new ChannelSendError(PROVIDER, `no answer within ${timeoutMs / 1000} s`, true, { timeout: true });
      if (signal?.aborted) throw err;
      const refused = refusalOf(err);
      if (refused) throw new ChannelSendError(PROVIDER, `refused: ${refused.message}`, false);
      // The host only: the URL holds the bot token, and undici's messages repeat the URL.
      throw new ChannelSendError(PROVIDER, `cannot reach the Bot API at ${hostOf(base ?? TELEGRAM_API_BASE)}`, true);
    }
    const text = await readBounded(res.body as ReadableStream<Uint8Array> | null);
    let answer: BotAnswer;
    try {
      answer = JSON.parse(text) as BotAnswer;
    } catch {
      throw new ChannelSendError(PROVIDER, `HTTP ${res.status} with a body that is not JSON`, res.status >= 500, {
        upstreamStatus: res.status,
      });
    }
    if (res.ok && answer.ok) return { answer };
    // Telegram's own short description ("Bad Request: chat not found"), bounded: a status line, not a page.
    const what = `${Number(answer.error_code) || res.status} ${excerpt(String(answer.description ?? 'error'), 100)}`;
    if (res.status === 429) {
      const retryAfter = Math.max(1, Number(answer.parameters?.retry_after) || 1);
      throw new ChannelSendError(PROVIDER, `${what} (retry after ${retryAfter} s)`, true, {
        upstreamStatus: 429,
        retryAfterSeconds: retryAfter,
      });
    }
    if (res.status === 401 || res.status === 404)
      throw new ChannelSendError(PROVIDER, `the bot token was refused (${what})`, false, {
        upstreamStatus: res.status,
      });
    throw new ChannelSendError(PROVIDER, what, res.status >= 500, { upstreamStatus: res.status });
  }

  return {
    /** Sends one message; waits out a short 429 once. Answers with Telegram's answer, shortened. */
    async sendMessage(
      c: { base: string | null; token: string; chatId: string },
      text: string,
      signal?: AbortSignal,
    ): Promise<string> {
      // Bot API 7.0 replaced disable_web_page_preview with link_preview_options.
      const body = { chat_id: c.chatId, text: cutText(text, TEXT_LIMIT), link_preview_options: { is_disabled: true } };
      // A group (negative id) takes 20 messages a minute: one each 3 s keeps within it.
      const chatGapMs = c.chatId.startsWith('-') ? 3000 : 1000;
      for (let tries = 0; ; tries++) {
        await spacing.acquire(`bot:${c.token}`, 34, signal);
        await spacing.acquire(`chat:${c.token}:${c.chatId}`, chatGapMs, signal);
        try {
          const { answer } = await call(c.base, c.token, 'sendMessage', body, signal);
          // Telegram's answer in short: the message id it gave (the whole answer repeats the text).
          return `ok: message_id ${answer.result?.message_id ?? '?'} in chat ${c.chatId}`;
        } catch (err) {
          const wait = err instanceof ChannelSendError ? err.retryAfterSeconds : undefined;
          if (wait === undefined || wait > MAX_INLINE_WAIT_S || tries >= 1) throw err;
          await sleep(wait * 1000, signal);
        }
      }
    },
    async getMe(c: { base: string | null; token: string }, signal?: AbortSignal) {
      return (await call(c.base, c.token, 'getMe', {}, signal)).answer.result;
    },
  };
}
export type TelegramClient = ReturnType<typeof createTelegramClient>;
