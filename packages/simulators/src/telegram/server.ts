import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readBody } from '../http-body.ts';

/**
 * A wire-level Telegram Bot API on loopback: `POST /bot<token>/getMe` and `/bot<token>/sendMessage` with the
 * real answers ({ ok, result } or { ok: false, error_code, description }), 401 for an unknown token, 400 for an
 * unknown chat, and 429 with `parameters.retry_after` when a chat gets more than one message a second, a group
 * (a negative chat id) more than 20 a minute, or a bot more than 30 a second (Telegram's documented limits). It
 * refuses text that is not well-formed Unicode (half of a surrogate pair) as Telegram refuses invalid UTF-8, and
 * keeps whether each message asked for no link preview (Bot API 7.0 `link_preview_options`, or the older
 * `disable_web_page_preview`, which Telegram still reads). Every message it accepts is kept for tests and the demo.
 */

export interface TelegramBot {
  id: number;
  token: string;
  username: string;
  /** Chats the bot may write to (ids as strings); empty: any chat. */
  chats: Set<string>;
}

export interface TelegramSimMessage {
  messageId: number;
  botUsername: string;
  chatId: string;
  text: string;
  date: number;
  /** The message asked for no link preview. */
  linkPreviewDisabled: boolean;
  /** `link_preview_options` as sent (Bot API 7.0), null without it. */
  linkPreviewOptions: Record<string, unknown> | null;
}

export interface TelegramSimOptions {
  port?: number;
  /** Per chat: at most one message per this many ms (Telegram: about 1 s). */
  chatGapMs?: number;
  /** Per bot: at most this many messages per second (Telegram: 30). */
  botPerSecond?: number;
  /** Per group (a negative chat id): at most this many messages a minute (Telegram: 20). */
  groupPerMinute?: number;
  now?: () => number;
}

export interface TelegramSim {
  /** The base to give a client (it appends /bot<token>/<method>). */
  url: string;
  port: number;
  addBot(token: string, username: string, chats?: string[]): TelegramBot;
  /** Messages accepted, oldest first. */
  messages: TelegramSimMessage[];
  /** The next `count` sendMessage calls answer with this (5xx or 429), whatever the limits say. */
  fail(f: { status: 429 | 500 | 502; retryAfter?: number; count?: number }): void;
  requests: number;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;
const MAX_KEPT = 1000;

export async function startTelegramSim(o: TelegramSimOptions = {}): Promise<TelegramSim> {
  const now = o.now ?? Date.now;
  const chatGapMs = o.chatGapMs ?? 1000;
  const botPerSecond = o.botPerSecond ?? 30;
  const groupPerMinute = o.groupPerMinute ?? 20;
  const bots = new Map<string, TelegramBot>();
  const messages: TelegramSimMessage[] = [];
  const lastByChat = new Map<string, number>();
  const sentByBot = new Map<string, number[]>();
  const sentByGroup = new Map<string, number[]>();
  let nextMessageId = 1;
  let forced: { status: number; retryAfter?: number; count: number } | null = null;
  let requests = 0;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const error = (res: ServerResponse, status: number, description: string, parameters?: Record<string, unknown>) =>
    send(res, status, { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) });

  async function params(req: IncomingMessage): Promise<Record<string, unknown>> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const fromQuery = Object.fromEntries(url.searchParams);
    if (req.method !== 'POST') return fromQuery;
    const raw = await readBody(req, MAX_BODY);
    const type = String(req.headers['content-type'] ?? '');
    if (type.includes('application/json'))
      return { ...fromQuery, ...(raw ? (JSON.parse(raw) as Record<string, unknown>) : {}) };
    return { ...fromQuery, ...Object.fromEntries(new URLSearchParams(raw)) };
  }

  const server = createServer((req, res) => {
    requests++;
    void (async () => {
      const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(new URL(req.url ?? '/', 'http://sim').pathname);
      if (!m) return error(res, 404, 'Not Found');
      const bot = bots.get(decodeURIComponent(m[1]!));
      if (!bot) return error(res, 401, 'Unauthorized');
      let p: Record<string, unknown>;
      try {
        p = await params(req);
      } catch {
        return error(res, 400, "Bad Request: can't parse JSON object");
      }
      const method = m[2]!;
      if (method === 'getMe') {
        return send(res, 200, {
          ok: true,
          result: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username, can_join_groups: true },
        });
      }
      if (method !== 'sendMessage') return error(res, 404, 'Not Found: method not found');
      const chatId = p.chat_id === undefined || p.chat_id === null ? '' : String(p.chat_id);
      const text = typeof p.text === 'string' ? p.text : '';
      if (!chatId) return error(res, 400, 'Bad Request: chat_id is empty');
      if (!text.trim()) return error(res, 400, 'Bad Request: message text is empty');
      if (text.length > 4096) return error(res, 400, 'Bad Request: message is too long');
      // A lone surrogate (a pair cut in two) has no UTF-8 form.
      if (/\p{Cs}/u.test(text)) return error(res, 400, 'Bad Request: strings must be encoded in UTF-8');
      let preview: unknown = p.link_preview_options;
      if (typeof preview === 'string') {
        try {
          preview = JSON.parse(preview);
        } catch {
          preview = null;
        }
      }
      if (preview !== undefined && (preview === null || typeof preview !== 'object' || Array.isArray(preview)))
        return error(res, 400, "Bad Request: can't parse link preview options JSON object");
      const linkPreviewDisabled =
        (preview as { is_disabled?: unknown } | undefined)?.is_disabled === true ||
        p.disable_web_page_preview === true ||
        p.disable_web_page_preview === 'true';
      if (bot.chats.size && !bot.chats.has(chatId)) return error(res, 400, 'Bad Request: chat not found');
      if (forced && forced.count > 0) {
        forced.count--;
        const f = forced;
        if (!forced.count) forced = null;
        if (f.status === 429) {
          const ra = f.retryAfter ?? 1;
          return error(res, 429, `Too Many Requests: retry after ${ra}`, { retry_after: ra });
        }
        return error(res, f.status, 'Internal Server Error');
      }
      const t = now();
      const chatKey = `${bot.token}|${chatId}`;
      const last = lastByChat.get(chatKey);
      if (last !== undefined && t - last < chatGapMs) {
        const ra = Math.max(1, Math.ceil((chatGapMs - (t - last)) / 1000));
        return error(res, 429, `Too Many Requests: retry after ${ra}`, { retry_after: ra });
      }
      const recent = (sentByBot.get(bot.token) ?? []).filter((x) => t - x < 1000);
      if (recent.length >= botPerSecond) {
        sentByBot.set(bot.token, recent);
        return error(res, 429, 'Too Many Requests: retry after 1', { retry_after: 1 });
      }
      const group = chatId.startsWith('-') ? (sentByGroup.get(chatKey) ?? []).filter((x) => t - x < 60_000) : null;
      if (group && group.length >= groupPerMinute) {
        sentByGroup.set(chatKey, group);
        const ra = Math.max(1, Math.ceil((group[0]! + 60_000 - t) / 1000));
        return error(res, 429, `Too Many Requests: retry after ${ra}`, { retry_after: ra });
      }
      if (group) {
        group.push(t);
        sentByGroup.set(chatKey, group);
      }
      recent.push(t);
      sentByBot.set(bot.token, recent);
      lastByChat.set(chatKey, t);
      const messageId = nextMessageId++;
      const date = Math.floor(t / 1000);
      messages.push({
        messageId,
        botUsername: bot.username,
        chatId,
        text,
        date,
        linkPreviewDisabled,
        linkPreviewOptions: (preview as Record<string, unknown> | undefined) ?? null,
      });
      if (messages.length > MAX_KEPT) messages.splice(0, messages.length - MAX_KEPT);
      const chat = /^-/.test(chatId)
        ? { id: Number(chatId), title: `Chat ${chatId}`, type: 'group' }
        : /^@/.test(chatId)
          ? { id: -1000000000001, title: chatId.slice(1), username: chatId.slice(1), type: 'channel' }
          : { id: Number(chatId), first_name: 'Operator', type: 'private' };
      return send(res, 200, {
        ok: true,
        result: {
          message_id: messageId,
          from: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username },
          chat,
          date,
          text,
        },
      });
    })().catch(() => {
      if (!res.headersSent) error(res, 500, 'Internal Server Error');
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let nextBotId = 7_000_000_001;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    messages,
    get requests() {
      return requests;
    },
    set requests(v: number) {
      requests = v;
    },
    addBot(token, username, chats = []) {
      const bot = { id: nextBotId++, token, username, chats: new Set(chats) };
      bots.set(token, bot);
      return bot;
    },
    fail(f) {
      forced = { status: f.status, retryAfter: f.retryAfter, count: f.count ?? 1 };
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
