import { afterEach, describe, expect, it } from 'vitest';
import { startTelegramSim, type TelegramSim } from './server.ts';

let sim: TelegramSim;
afterEach(async () => sim?.close());

const call = async (token: string, method: string, body: unknown) => {
  const res = await fetch(`${sim.url}/bot${token}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('Telegram Bot API simulator', () => {
  it('answers getMe and sendMessage as the Bot API does, and keeps the messages', async () => {
    let t = 1_000_000;
    sim = await startTelegramSim({ now: () => t });
    sim.addBot('123:ABC', 'fleet_bot', ['42']);
    const me = await call('123:ABC', 'getMe', {});
    expect(me).toMatchObject({ status: 200, body: { ok: true, result: { is_bot: true, username: 'fleet_bot' } } });
    const sent = await call('123:ABC', 'sendMessage', { chat_id: 42, text: 'hello' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ ok: true, result: { message_id: 1, chat: { id: 42 }, text: 'hello' } });
    expect(sim.messages.map((m) => [m.chatId, m.text])).toEqual([['42', 'hello']]);
    t += 1500;
    expect((await call('123:ABC', 'sendMessage', { chat_id: '42', text: 'again' })).status).toBe(200);
  });

  it('refuses a bad token with 401 and an unknown chat with 400', async () => {
    sim = await startTelegramSim();
    sim.addBot('123:ABC', 'fleet_bot', ['42']);
    expect(await call('999:NOPE', 'sendMessage', { chat_id: 42, text: 'x' })).toEqual({
      status: 401,
      body: { ok: false, error_code: 401, description: 'Unauthorized' },
    });
    const r = await call('123:ABC', 'sendMessage', { chat_id: 7, text: 'x' });
    expect(r).toMatchObject({ status: 400, body: { ok: false, description: 'Bad Request: chat not found' } });
  });

  it('answers 429 with parameters.retry_after past one message a second per chat or 30 a second per bot', async () => {
    const t = 5_000_000;
    sim = await startTelegramSim({ now: () => t });
    sim.addBot('1:A', 'a_bot');
    expect((await call('1:A', 'sendMessage', { chat_id: 1, text: 'one' })).status).toBe(200);
    const again = await call('1:A', 'sendMessage', { chat_id: 1, text: 'two' });
    expect(again.status).toBe(429);
    expect(again.body).toMatchObject({ ok: false, error_code: 429, parameters: { retry_after: 1 } });
    for (let chat = 2; chat <= 30; chat++) {
      expect((await call('1:A', 'sendMessage', { chat_id: chat, text: 'x' })).status).toBe(200);
    }
    const over = await call('1:A', 'sendMessage', { chat_id: 31, text: 'x' });
    expect(over).toMatchObject({ status: 429, body: { parameters: { retry_after: 1 } } });
    expect(sim.messages).toHaveLength(30);
  });

  it('answers 429 past 20 messages a minute in a group, with the wait until the oldest leaves the minute', async () => {
    let t = 9_000_000;
    sim = await startTelegramSim({ now: () => t });
    sim.addBot('1:A', 'a_bot');
    for (let i = 0; i < 20; i++) {
      expect((await call('1:A', 'sendMessage', { chat_id: -100123, text: `m${i}` })).status).toBe(200);
      t += 1500;
    }
    // 30 s after the first: the group's minute is full for another 30 s; a private chat is not limited so.
    const over = await call('1:A', 'sendMessage', { chat_id: -100123, text: 'm20' });
    expect(over).toMatchObject({ status: 429, body: { error_code: 429, parameters: { retry_after: 30 } } });
    expect((await call('1:A', 'sendMessage', { chat_id: 5, text: 'private' })).status).toBe(200);
    t = 9_000_000 + 60_000;
    expect((await call('1:A', 'sendMessage', { chat_id: -100123, text: 'm20' })).status).toBe(200);
    expect(sim.messages.filter((m) => m.chatId === '-100123')).toHaveLength(21);
  });

  it('refuses half a surrogate pair as Telegram refuses invalid UTF-8, and keeps the link preview choice', async () => {
    let t = 1_000_000;
    sim = await startTelegramSim({ now: () => t });
    sim.addBot('1:A', 'a_bot');
    const cut = 'rocket 🚀'.slice(0, -1);
    expect(await call('1:A', 'sendMessage', { chat_id: 1, text: cut })).toMatchObject({
      status: 400,
      body: { ok: false, description: 'Bad Request: strings must be encoded in UTF-8' },
    });
    const bad = await call('1:A', 'sendMessage', { chat_id: 1, text: 'x', link_preview_options: 'nope' });
    expect(bad.status).toBe(400);
    await call('1:A', 'sendMessage', { chat_id: 1, text: 'a', link_preview_options: { is_disabled: true } });
    t += 1500;
    await call('1:A', 'sendMessage', { chat_id: 1, text: 'b https://example.com' });
    expect(sim.messages.map((m) => [m.text, m.linkPreviewDisabled, m.linkPreviewOptions])).toEqual([
      ['a', true, { is_disabled: true }],
      ['b https://example.com', false, null],
    ]);
  });

  it('fails on demand (a forced 429 with its retry_after, or a 5xx)', async () => {
    sim = await startTelegramSim();
    sim.addBot('1:A', 'a_bot');
    sim.fail({ status: 429, retryAfter: 3 });
    expect((await call('1:A', 'sendMessage', { chat_id: 1, text: 'x' })).body).toMatchObject({
      error_code: 429,
      parameters: { retry_after: 3 },
    });
    sim.fail({ status: 502 });
    expect((await call('1:A', 'sendMessage', { chat_id: 1, text: 'x' })).status).toBe(502);
    expect((await call('1:A', 'sendMessage', { chat_id: 1, text: 'x' })).status).toBe(200);
  });
});
