import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REDACTED, SECRET_MASK } from '@fleetdesk/contract';
import { startSmtpCatcher, type SmtpCatcher } from '@fleetdesk/simulators/smtp/index.ts';
import { startTelegramSim, type TelegramSim } from '@fleetdesk/simulators/telegram/index.ts';
import { MIGRATIONS_DIR } from '../../db/client.ts';
import { notificationChannels } from '../../db/schema/index.ts';
import { isPublicAddress } from '../../integrations/notify/destination.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

// Decision 058: where a channel's credential goes, what tokens may change, what is kept of an answer, and which
// destinations are refused. `t` refuses private destinations (the default); `open` allows them (loopback receivers).
let t: TestApp;
let open: TestApp;
let smtp: SmtpCatcher;
let tg: TelegramSim;
let receiver: http.Server;
let port: number;
const hits: string[] = [];
/** Every request the loopback receiver got: Telegram Bot API calls (/bot…) and webhook deliveries. */
const received: { url: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
/** The signing secrets of the webhook channels this test made (revealed as an operator would copy them). */
const webhookSecrets: string[] = [];

beforeAll(async () => {
  smtp = await startSmtpCatcher({ users: { alerts: 'smtp-pa55' } });
  tg = await startTelegramSim();
  tg.addBot('111:TOKEN', 'fleet_bot', ['42']);
  receiver = http.createServer((req, res) => {
    hits.push(String(req.url));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: String(req.url), body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.end(`welcome back, the admin session is ${'x'.repeat(300)}`);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  port = (receiver.address() as AddressInfo).port;
  t = await createTestApp({ ALERT_ALLOW_PRIVATE_DESTINATIONS: '0' });
  open = await createTestApp();
}, 120_000);
afterAll(async () => {
  await Promise.all([t?.close(), open?.close()]);
  await Promise.all([smtp?.close(), tg?.close(), new Promise((r) => receiver?.close(r))]);
});
beforeEach(async () => {
  await Promise.all([t.reset(), open.reset()]);
  hits.length = 0;
  received.length = 0;
  webhookSecrets.length = 0;
  tg.messages.length = 0;
  smtp.mails.length = 0;
});

/** Whether a webhook delivery verifies, by Standard Webhooks' reference library, with one of the channels' secrets. */
const verifies = (d: (typeof received)[number]) =>
  webhookSecrets.some((secret) => {
    try {
      new Webhook(secret).verify(d.body, d.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  });
// Every webhook delivery any test here made reached the receiver signed: it verifies with its channel's secret.
afterEach(() => {
  const deliveries = received.filter((r) => !r.url.startsWith('/bot'));
  expect(deliveries.filter((d) => !verifies(d)).map((d) => d.url)).toEqual([]);
});

type Method = 'GET' | 'POST' | 'PATCH';
const call = (app: TestApp, auth: string, method: Method, url: string, payload?: object) =>
  app.inject({ method, url, headers: { authorization: auth }, payload });
const create = async (app: TestApp, auth: string, payload: object) => {
  const res = await call(app, auth, 'POST', '/api/notification-channels', payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { _id: string };
};
/** A webhook channel, its signing secret kept for the check of every delivery. */
const webhookChannel = async (app: TestApp, auth: string, payload: object) => {
  const hook = await create(app, auth, { kind: 'webhook', ...payload });
  const rev = await call(app, auth, 'POST', `/api/notification-channels/${hook._id}/reveal`, {
    field: 'webhookSecret',
  });
  expect(rev.statusCode, rev.body).toBe(200);
  webhookSecrets.push(rev.json().data.value as string);
  return hook;
};
/** A personal API token (fdt_…) of a user holding `rules`. */
async function apiToken(app: TestApp, rules: string[]) {
  const session = await app.tokenFor(rules);
  const res = await call(app, session, 'POST', '/auth/tokens', { name: 'ci', rules, expiresInDays: 30 });
  expect(res.statusCode, res.body).toBe(200);
  return { session, bearer: `Bearer ${res.json().data.token as string}` };
}
const email = (over: object = {}) => ({
  name: 'Ops mail',
  kind: 'email',
  smtpHost: '127.0.0.1',
  smtpPort: smtp.port,
  smtpSecurity: 'none',
  smtpUser: 'alerts',
  smtpPassword: 'smtp-pa55',
  emailFrom: 'fleetdesk@example.com',
  emailTo: 'ops@example.com',
  ...over,
});
const telegram = (over: object = {}) => ({
  name: 'Ops chat',
  kind: 'telegram',
  telegramBotToken: '111:TOKEN',
  telegramChatId: '42',
  telegramApiBase: tg.url,
  ...over,
});

describe('changing where a stored credential is sent', () => {
  it('needs the password again for a new SMTP host, port or security, and the bot token for a new Bot API', async () => {
    const { session } = await apiToken(open, ['cnv']);
    const mail = await create(open, session, email());
    const path = `/api/notification-channels/${mail._id}`;
    for (const change of [{ smtpPort: 39412 }, { smtpHost: 'mail.example.org' }, { smtpSecurity: 'tls' }]) {
      const res = await call(open, session, 'PATCH', path, change);
      expect(res.statusCode, JSON.stringify(change)).toBe(400);
      expect(res.json().fields.smtpPassword).toMatch(/^Enter the password again to change the (port|host|security)$/);
    }
    // The form sends the mask for an untouched password: that is not entering it again.
    const masked = await call(open, session, 'PATCH', path, { smtpPort: 39412, smtpPassword: SECRET_MASK });
    expect(masked.statusCode).toBe(400);
    // Unchanged values and other fields are free; with the password typed again the move is allowed.
    expect((await call(open, session, 'PATCH', path, { smtpPort: smtp.port, name: 'Mail' })).statusCode).toBe(200);
    const moved = await call(open, session, 'PATCH', path, { smtpPort: 39412, smtpPassword: 'new-pass' });
    expect(moved.statusCode, moved.body).toBe(200);

    const chat = await create(open, session, telegram());
    const chatPath = `/api/notification-channels/${chat._id}`;
    const bad = await call(open, session, 'PATCH', chatPath, { telegramApiBase: 'http://127.0.0.1:39412' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({ telegramBotToken: 'Enter the bot token again to change the Bot API address' });
    const ok = await call(open, session, 'PATCH', chatPath, {
      telegramApiBase: 'http://127.0.0.1:39412',
      telegramBotToken: '111:TOKEN',
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('gives a webhook a new signing secret with a new URL', async () => {
    const { session } = await apiToken(open, ['cnv']);
    const hook = await create(open, session, {
      name: 'Hook',
      kind: 'webhook',
      webhookUrl: 'https://hooks.example.com/a',
    });
    const path = `/api/notification-channels/${hook._id}`;
    const secret = async () =>
      (await call(open, session, 'POST', `${path}/reveal`, { field: 'webhookSecret' })).json().data.value;
    const before = await secret();
    expect((await call(open, session, 'PATCH', path, { name: 'Hook 2' })).statusCode).toBe(200);
    expect(await secret()).toBe(before);
    expect(
      (await call(open, session, 'PATCH', path, { webhookUrl: 'https://elsewhere.example.net/' })).statusCode,
    ).toBe(200);
    expect(await secret()).not.toBe(before);
  });

  it('is refused to an API token, even with the credential; other fields stay open to it', async () => {
    const { session, bearer } = await apiToken(open, ['cnv']);
    const mail = await create(open, session, email());
    const chat = await create(open, session, telegram());
    const hook = await create(open, session, {
      name: 'Hook',
      kind: 'webhook',
      webhookUrl: 'https://hooks.example.com/a',
    });
    const tries: [string, object][] = [
      [mail._id, { smtpPort: 39412, smtpPassword: 'smtp-pa55' }],
      [mail._id, { smtpHost: 'attacker.example' }],
      [chat._id, { telegramApiBase: 'http://127.0.0.1:39412', telegramBotToken: '111:TOKEN' }],
      [hook._id, { webhookUrl: 'https://attacker.example/' }],
    ];
    for (const [id, body] of tries) {
      const res = await call(open, bearer, 'PATCH', `/api/notification-channels/${id}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(403);
      expect(res.json().message).toMatch(/^An API token cannot change where a stored credential is sent/);
    }
    expect(
      (await call(open, bearer, 'PATCH', `/api/notification-channels/${mail._id}`, { name: 'Renamed' })).statusCode,
    ).toBe(200);
    const [row] = await open.c.database.db
      .select()
      .from(notificationChannels)
      .where(eq(notificationChannels.id, mail._id));
    expect(row!.smtpPort).toBe(smtp.port);
  });

  it('refuses credentials in a URL on save', async () => {
    const { session } = await apiToken(open, ['cnv']);
    const hook = await call(open, session, 'POST', '/api/notification-channels', {
      name: 'Hook',
      kind: 'webhook',
      webhookUrl: 'https://user:pass@hooks.example.com/a',
    });
    expect(hook.statusCode).toBe(400);
    expect(hook.json().fields.webhookUrl).toBe('URL must not contain a user name or password');
    const chat = await call(
      open,
      session,
      'POST',
      '/api/notification-channels',
      telegram({ telegramApiBase: 'http://x:y@127.0.0.1:1' }),
    );
    expect(chat.statusCode).toBe(400);
    expect(chat.json().fields.telegramApiBase).toBe('Bot API address must not contain a user name or password');
  });
});

describe('secrets in answers, logs and the audit', () => {
  it('never shows the bot token or a URL’s password in a test answer or the delivery log', async () => {
    const { session } = await apiToken(open, ['cnv']);
    const chat = await create(open, session, telegram());
    // A row saved before URLs with credentials were refused.
    await open.c.database.db
      .update(notificationChannels)
      .set({ telegramApiBase: `http://x:y@127.0.0.1:${port}` })
      .where(eq(notificationChannels.id, chat._id));
    const r = (await call(open, session, 'POST', `/api/notification-channels/${chat._id}/test`)).json().data;
    expect(r.ok).toBe(false);
    expect(r.answer).toBe(`Telegram: cannot reach the Bot API at 127.0.0.1:${port}`);
    const hook = await create(open, session, {
      name: 'Hook',
      kind: 'webhook',
      webhookUrl: 'https://hooks.example.com/',
    });
    await open.c.database.db
      .update(notificationChannels)
      .set({ webhookUrl: `http://x:y@127.0.0.1:${port}/hook` })
      .where(eq(notificationChannels.id, hook._id));
    const r2 = (await call(open, session, 'POST', `/api/notification-channels/${hook._id}/test`)).json().data;
    expect(r2).toMatchObject({ ok: false, answer: `Webhook: cannot reach 127.0.0.1:${port}` });
    const log = JSON.stringify((await call(open, session, 'GET', '/api/alerts/deliveries')).json().data);
    for (const text of [JSON.stringify(r), JSON.stringify(r2), log, open.logs.join('\n')]) {
      expect(text).not.toContain('111:TOKEN');
      expect(text).not.toContain('x:y@');
    }
  });

  it('keeps only the status line of a receiver’s answer', async () => {
    const { session } = await apiToken(open, ['cnv']);
    const hook = await webhookChannel(open, session, {
      name: 'Hook',
      webhookUrl: `http://127.0.0.1:${port}/auth/login`,
    });
    const r = (await call(open, session, 'POST', `/api/notification-channels/${hook._id}/test`)).json().data;
    expect(r).toMatchObject({ ok: true, answer: 'HTTP 200 OK' });
    // The delivery itself: signed, and it verifies with the channel's secret (Standard Webhooks' library).
    const [delivery, ...more] = received.filter((d) => d.url === '/auth/login');
    expect(more).toEqual([]);
    expect(
      new Webhook(webhookSecrets[0]!).verify(delivery!.body, delivery!.headers as Record<string, string>),
    ).toMatchObject({ type: 'test', deliveryId: delivery!.headers['webhook-id'] });
    const log = (await call(open, session, 'GET', '/api/alerts/deliveries')).json().data;
    expect(log.items[0].answer).toBe('HTTP 200 OK');
    // A Bot API address that answers with a page: its words are not kept either.
    const chat = await create(open, session, telegram({ telegramApiBase: `http://127.0.0.1:${port}` }));
    const r2 = (await call(open, session, 'POST', `/api/notification-channels/${chat._id}/test`)).json().data;
    expect(r2).toMatchObject({ ok: false, answer: 'Telegram: HTTP 200 with a body that is not JSON' });
  });

  it('records that a channel secret changed, never its sealed form', async () => {
    const { session } = await apiToken(open, ['cnv']);
    const chat = await create(open, session, telegram());
    expect(
      (await call(open, session, 'PATCH', `/api/notification-channels/${chat._id}`, { telegramBotToken: '222:NEW' }))
        .statusCode,
    ).toBe(200);
    const [row] = await open.c.database.db
      .select()
      .from(notificationChannels)
      .where(eq(notificationChannels.id, chat._id));
    const audit = (
      (await open.c.database.db.execute(
        sql`select action, diff from audit_log where entity = 'notification-channels' order by at`,
      )) as unknown as { rows: { action: string; diff: Record<string, { before: unknown; after: unknown }> }[] }
    ).rows;
    const text = JSON.stringify(audit);
    expect(text).not.toContain(row!.telegramBotTokenEnc!);
    const update = audit.find((a) => a.action === 'update')!;
    expect(update.diff.telegramBotTokenEnc).toEqual({ before: REDACTED, after: REDACTED });
  });
});

describe('what was stored before (migration 0035)', () => {
  it('scrubs bot tokens, URL passwords, webhook pages and sealed secrets from answers, the log and the audit', async () => {
    const { session } = await apiToken(open, ['cnv']);
    const chat = await create(open, session, telegram());
    const hook = await create(open, session, {
      name: 'Hook',
      kind: 'webhook',
      webhookUrl: 'https://hooks.example.com/',
    });
    const leaked =
      'Telegram: cannot reach the Bot API (includes credentials: http://x:y@127.0.0.1:1/bot123456:AAsecret-_x/sendMessage)';
    const db = open.c.database.db;
    await db.update(notificationChannels).set({ lastTestAnswer: leaked }).where(eq(notificationChannels.id, chat._id));
    await db
      .update(notificationChannels)
      .set({ lastTestAnswer: 'Webhook: HTTP 503 <html>admin login page</html>' })
      .where(eq(notificationChannels.id, hook._id));
    await db.execute(sql`insert into alert_delivery_log (channel_name, channel_kind, event, outcome, answer) values
      ('Ops chat', 'telegram', 'Test message', 'failed', ${leaked}),
      ('Hook', 'webhook', 'Test message', 'test', 'HTTP 200 welcome back, the admin session is abc')`);
    await db.execute(sql`insert into audit_log (action, entity, entity_id, details, diff) values
      ('test', 'notification-channels', ${chat._id}, ${JSON.stringify({ ok: false, answer: leaked })}::jsonb, null),
      ('update', 'notification-channels', ${chat._id}, null,
        ${JSON.stringify({ telegramBotTokenEnc: { before: 'v1:aaa', after: 'v1:bbb' }, name: { before: 'a', after: 'b' } })}::jsonb)`);

    const file = fs.readFileSync(path.join(MIGRATIONS_DIR, '0035_scrub_channel_answers.sql'), 'utf8');
    for (const statement of file.split('--> statement-breakpoint')) await open.c.database.exec(statement);

    const scrubbed =
      'Telegram: cannot reach the Bot API (includes credentials: http://127.0.0.1:1/bot[redacted]/sendMessage)';
    const rows = await db.select().from(notificationChannels);
    expect(rows.find((r) => r.id === chat._id)!.lastTestAnswer).toBe(scrubbed);
    expect(rows.find((r) => r.id === hook._id)!.lastTestAnswer).toBe('Webhook: HTTP 503');
    const log = (await db.execute(sql`select answer from alert_delivery_log order by id`)) as unknown as {
      rows: { answer: string }[];
    };
    expect(log.rows.map((r) => r.answer)).toEqual([scrubbed, 'HTTP 200']);
    const audit = (await db.execute(
      sql`select action, details, diff from audit_log where entity = 'notification-channels' and action in ('test', 'update')`,
    )) as unknown as { rows: { action: string; details: { answer?: string } | null; diff: unknown }[] };
    expect(audit.rows.find((r) => r.action === 'test')!.details!.answer).toBe(scrubbed);
    expect(audit.rows.find((r) => r.action === 'update')!.diff).toEqual({
      telegramBotTokenEnc: { before: REDACTED, after: REDACTED },
      name: { before: 'a', after: 'b' },
    });
  });
});

describe('private destinations', () => {
  it('tells public addresses from loopback, private, link-local and unique-local ones', () => {
    for (const a of ['8.8.8.8', '2001:4860:4860::8888']) expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      '::',
      'fc00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-address',
    ])
      expect(isPublicAddress(a), a).toBe(false);
  });

  it('are refused by default, however the address is written, and nothing reaches them', async () => {
    const { session } = await apiToken(t, ['cnv']);
    const urls = [
      `http://127.0.0.1:${port}/auth/login`,
      `http://2130706433:${port}/`,
      `http://0177.0.0.1:${port}/`,
      `http://127.1:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://localhost:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
    ];
    for (const [i, url] of urls.entries()) {
      const hook = await create(t, session, { name: `Hook ${i}`, kind: 'webhook', webhookUrl: url });
      const r = (await call(t, session, 'POST', `/api/notification-channels/${hook._id}/test`)).json().data;
      expect(r.ok, url).toBe(false);
      expect(r.answer, url).toMatch(/^Webhook: refused: .+ is a loopback, private or link-local address/);
    }
    const chat = await create(t, session, telegram());
    const r2 = (await call(t, session, 'POST', `/api/notification-channels/${chat._id}/test`)).json().data;
    expect(r2).toMatchObject({
      ok: false,
      answer: expect.stringMatching(/^Telegram: refused: 127\.0\.0\.1 is a loopback/),
    });
    const mail = await create(t, session, email());
    const r3 = (await call(t, session, 'POST', `/api/notification-channels/${mail._id}/test`)).json().data;
    expect(r3).toMatchObject({
      ok: false,
      answer: expect.stringMatching(/^SMTP: refused: 127\.0\.0\.1 is a loopback/),
    });
    expect(hits).toEqual([]);
    expect(tg.messages).toEqual([]);
    expect(smtp.mails).toEqual([]);
  });

  it('are reached when ALERT_ALLOW_PRIVATE_DESTINATIONS is on', async () => {
    const { session } = await apiToken(open, ['cnv']);
    const chat = await create(open, session, telegram());
    const r = (await call(open, session, 'POST', `/api/notification-channels/${chat._id}/test`)).json().data;
    expect(r.ok, r.answer).toBe(true);
    expect(tg.messages).toHaveLength(1);
  });
});
