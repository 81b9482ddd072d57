import { startTelegramSim, type TelegramSim } from '@fleetdesk/simulators/telegram/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutText } from '../../lib/text-cut.ts';
import { createTelegramClient } from './telegram.ts';

// The Bot API client against the simulator, which refuses what Telegram refuses.
let tg: TelegramSim;
beforeAll(async () => {
  tg = await startTelegramSim();
  tg.addBot('5:LIMITS', 'limits_bot');
});
afterAll(() => tg?.close());

describe('Telegram messages', () => {
  it('ask for no link preview with Bot API 7.0 link_preview_options', async () => {
    const client = createTelegramClient({ destinations: { allowPrivate: true } });
    await client.sendMessage({ base: tg.url, token: '5:LIMITS', chatId: '1' }, 'see https://example.com');
    expect(tg.messages.at(-1)).toMatchObject({
      text: 'see https://example.com',
      linkPreviewDisabled: true,
      linkPreviewOptions: { is_disabled: true },
    });
  });

  it('are cut to 4096 characters between characters, never inside a surrogate pair', async () => {
    const client = createTelegramClient({ destinations: { allowPrivate: true } });
    // The 4096th unit is the first half of a rocket: a plain slice would send half of it.
    const text = `${'a'.repeat(4095)}🚀${'b'.repeat(900)}`;
    const answer = await client.sendMessage({ base: tg.url, token: '5:LIMITS', chatId: '2' }, text);
    expect(answer).toMatch(/^ok: message_id \d+ in chat 2$/);
    const sent = tg.messages.at(-1)!.text;
    expect(sent.length).toBeLessThanOrEqual(4096);
    expect(sent).toBe(`${'a'.repeat(4095)}…`);
  });

  it('to a group are spaced 3 s apart, within its 20 a minute', async () => {
    const client = createTelegramClient({ destinations: { allowPrivate: true } });
    const group = { base: tg.url, token: '5:LIMITS', chatId: '-100777' };
    const t0 = Date.now();
    await client.sendMessage(group, 'one');
    await client.sendMessage(group, 'two');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2900);
  });

  it('cutText keeps whole graphemes and adds an ellipsis only when it cuts', () => {
    expect(cutText('short', 10)).toBe('short');
    expect(cutText('ab🚀cd', 4)).toBe('ab…');
    expect(cutText('a👍🏽b', 5)).toBe('a…');
    expect(cutText('👨‍👩‍👧xy', 9)).toBe('👨‍👩‍👧…');
    expect(cutText('x'.repeat(10), 5)).toBe('xxxx…');
  });
});
