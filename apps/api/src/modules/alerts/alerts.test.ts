import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_MASK, WEBHOOK_DELIVERY_HEADER, WEBHOOK_SIGNATURE_HEADER } from '@fleetdesk/contract';
import { startSmtpCatcher, type SmtpCatcher } from '@fleetdesk/simulators/smtp/index.ts';
import { startTelegramSim, type TelegramSim } from '@fleetdesk/simulators/telegram/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { Webhook } from 'standardwebhooks';
import { humanDuration, releaseTime } from './alerts.compose.ts';

// Alerts end to end on loopback: a real SMTP server, an HTTP receiver checking signatures, the Bot API simulator.
let t: TestApp;
let h: string;
let smtp: SmtpCatcher;
let tg: TelegramSim;
let receiver: http.Server;
let hookUrl: string;
let hookStatus = 200;
let hookRetryAfter: string | null = null;
const hooks: { id: string; body: string; valid: boolean }[] = [];
const webhookSecrets: string[] = [];

const rowsOf = <T>(r: unknown) => (r as { rows: T[] }).rows;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  smtp = await startSmtpCatcher({ users: { alerts: 'smtp-pa55' } });
  tg = await startTelegramSim();
  tg.addBot('111:TOKEN', 'fleet_bot', ['42']);
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const sig = String(req.headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()] ?? '');
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(sig);
      const fleetdeskValid =
        !!m &&
        webhookSecrets.some((s) => createHmac('sha256', s).update(`${m[1]}.${body}`).digest('hex') === m[2]) &&
        Math.abs(Date.now() / 1000 - Number(m[1])) < 300;
      // Standard Webhooks, checked by its reference library (it also refuses a timestamp 5 minutes off).
      const standardValid = webhookSecrets.some((s) => {
        try {
          new Webhook(s).verify(body, req.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      const id = String(req.headers['webhook-id']);
      hooks.push({
        id,
        body,
        valid: fleetdeskValid && standardValid && id === req.headers[WEBHOOK_DELIVERY_HEADER.toLowerCase()],
      });
      res.writeHead(hookStatus, {
        'content-type': 'text/plain',
        ...(hookRetryAfter ? { 'retry-after': hookRetryAfter } : {}),
      });
      res.end(hookStatus === 200 ? 'received' : 'unavailable');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  t = await createTestApp(
    { ALERTS_GROUP_SECONDS: '0', ALERTS_RETRY_SECONDS: '1' },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([smtp?.close(), tg?.close(), new Promise((r) => receiver?.close(r))]);
});
beforeEach(async () => {
  await t.reset();
  h = await t.tokenFor(['cnv']);
  smtp.mails.length = 0;
  tg.messages.length = 0;
  hooks.length = 0;
  hookStatus = 200;
  hookRetryAfter = null;
});

// Every webhook any test received carries both signatures, each verified (the reference library for Standard Webhooks).
afterEach(() => {
  expect(hooks.filter((x) => !x.valid)).toEqual([]);
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: object, auth = h) =>
  t.inject({ method, url, headers: { authorization: auth }, payload });
const created = async (url: string, payload: object) => {
  const res = await call('POST', url, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as Record<string, any>;
};
const emailChannel = () =>
  created('/api/notification-channels', {
    name: 'Ops mail',
    kind: 'email',
    smtpHost: '127.0.0.1',
    smtpPort: smtp.port,
    smtpSecurity: 'none',
    smtpUser: 'alerts',
    smtpPassword: 'smtp-pa55',
    emailFrom: 'fleetdesk@example.com',
    emailTo: 'ops@example.com',
  });
const telegramChannel = (token = '111:TOKEN') =>
  created('/api/notification-channels', {
    name: `Ops chat ${token}`,
    kind: 'telegram',
    telegramBotToken: token,
    telegramChatId: '42',
    telegramApiBase: tg.url,
  });
const webhookChannel = async () => {
  const c = await created('/api/notification-channels', { name: 'Hook', kind: 'webhook', webhookUrl: hookUrl });
  const rev = await call('POST', `/api/notification-channels/${c._id}/reveal`, { field: 'webhookSecret' });
  webhookSecrets.push(rev.json().data.value);
  return c;
};
const rule = (channelIds: string[], extra: object = {}) =>
  created('/api/alert-rules', {
    name: `Rule ${Math.random()}`,
    events: ['health_failing', 'server_offline', 'job_failed'],
    healthMinutes: 0,
    channelIds,
    minSeverity: 'warning',
    ...extra,
  });

let domainSeq = 0;
const domain = async (brandId: string | null = null) => {
  const name = `site${++domainSeq}.example`;
  const [r] = rowsOf<{ id: string }>(
    await t.c.database.db.execute(
      sql`insert into domains (domain_name, domain_name_unicode, brand_id) values (${name}, ${name}, ${brandId}) returning id`,
    ),
  );
  return { id: r!.id, name };
};
const setCheck = (domainId: string, state: string, since: Date) =>
  t.c.database.db.execute(sql`insert into domain_health_checks (domain_id, check_key, state, observed, since, last_run)
    values (${domainId}, 'site_https', ${state}, ${state === 'failing' ? 'HTTP 502' : 'HTTP 200'}, ${since}, ${since})
    on conflict (domain_id, check_key) do update set state = excluded.state, observed = excluded.observed, since = excluded.since`);

const deliveries = async () =>
  rowsOf<{ id: string; status: string; subject: string; text: string; attempts: number }>(
    await t.c.database.db.execute(
      sql`select id, status, subject, text, attempts from alert_deliveries order by created_at`,
    ),
  );
/** Waits until every delivery has ended (sent or failed). */
const settled = async (timeoutMs = 30_000) => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ds = await deliveries();
    if (ds.every((d) => d.status === 'sent' || d.status === 'failed')) return ds;
    if (Date.now() > until) throw new Error(`deliveries not settled: ${JSON.stringify(ds.map((d) => d.status))}`);
    await sleep(100);
  }
};
const evaluate = (now = new Date()) => t.c.services.alerts.evaluate(now);

describe('notification channels', () => {
  it('keeps secrets sealed and masked, reveals them with an audit entry, and checks each kind’s fields', async () => {
    const bad = await call('POST', '/api/notification-channels', { name: 'x', kind: 'email', smtpHost: 'mail' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toMatchObject({ emailTo: expect.any(String), emailFrom: expect.any(String) });
    const c = await emailChannel();
    expect(c).toMatchObject({ kind: 'email', smtpPassword: SECRET_MASK, smtpUser: 'alerts' });
    const [stored] = rowsOf<{ p: string }>(
      await t.c.database.db.execute(sql`select smtp_password_enc as p from notification_channels`),
    );
    expect(stored!.p).not.toContain('smtp-pa55');
    const rev = await call('POST', `/api/notification-channels/${c._id}/reveal`, { field: 'smtpPassword' });
    expect(rev.json().data).toEqual({ field: 'smtpPassword', value: 'smtp-pa55' });
    const audit = rowsOf<{ action: string }>(
      await t.c.database.db.execute(sql`select action from audit_log where entity = 'notification-channels'`),
    );
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['create', 'reveal']));
    const hook = await created('/api/notification-channels', { name: 'Hook', kind: 'webhook', webhookUrl: hookUrl });
    expect(hook.webhookSecret).toBe(SECRET_MASK);
    expect(t.logs.join('\n')).not.toContain('smtp-pa55');
  });

  it('is managed with the admin rule only; alerts are read with cnv:domains', async () => {
    const domainsOnly = await t.tokenFor(['cnv:domains']);
    expect((await call('GET', '/api/notification-channels', undefined, domainsOnly)).statusCode).toBe(403);
    expect((await call('GET', '/api/alert-rules', undefined, domainsOnly)).statusCode).toBe(403);
    expect((await call('GET', '/api/alerts', undefined, domainsOnly)).statusCode).toBe(200);
    expect((await call('GET', '/api/alerts/deliveries', undefined, domainsOnly)).statusCode).toBe(200);
  });

  it('sends a test message through each provider and shows the provider’s answer', async () => {
    const mail = await emailChannel();
    const r1 = (await call('POST', `/api/notification-channels/${mail._id}/test`)).json().data;
    expect(r1).toMatchObject({ ok: true, answer: expect.stringMatching(/^250 .*Message queued/) });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]).toMatchObject({ to: ['ops@example.com'], subject: '[Fleetdesk] Test message for Ops mail' });
    expect(smtp.mails[0]!.text).toContain('Fleetdesk test message');
    expect(smtp.mails[0]!.html).toContain('<p>Fleetdesk test message');

    const hook = await webhookChannel();
    const r2 = (await call('POST', `/api/notification-channels/${hook._id}/test`)).json().data;
    expect(r2).toMatchObject({ ok: true, answer: 'HTTP 200 OK' });
    expect(hooks[0]!.valid).toBe(true);
    expect(JSON.parse(hooks[0]!.body)).toMatchObject({ type: 'test', total: 0 });

    const chat = await telegramChannel();
    const r3 = (await call('POST', `/api/notification-channels/${chat._id}/test`)).json().data;
    expect(r3.ok).toBe(true);
    expect(r3.answer).toMatch(/^ok: message_id \d+ in chat 42$/);
    expect(tg.messages.map((m) => m.chatId)).toEqual(['42']);
  });

  it('turns provider failures into clear messages naming the provider', async () => {
    const chat = await telegramChannel('999:WRONG');
    const r = (await call('POST', `/api/notification-channels/${chat._id}/test`)).json().data;
    expect(r).toMatchObject({ ok: false, answer: 'Telegram: the bot token was refused (401 Unauthorized)' });
    const mail = await emailChannel();
    smtp.refuse(550, 'Mailbox unavailable');
    const r2 = (await call('POST', `/api/notification-channels/${mail._id}/test`)).json().data;
    expect(r2.ok).toBe(false);
    expect(r2.answer).toMatch(/^SMTP: 127\.0\.0\.1:\d+ refused: 550 Mailbox unavailable/);
    hookStatus = 503;
    const hook = await webhookChannel();
    const r3 = (await call('POST', `/api/notification-channels/${hook._id}/test`)).json().data;
    expect(r3).toMatchObject({ ok: false, answer: 'Webhook: HTTP 503 Service Unavailable' });
    const log = (await call('GET', '/api/alerts/deliveries')).json().data;
    expect(log.items.map((i: { outcome: string }) => i.outcome)).toEqual(['failed', 'failed', 'failed']);
  });

  it('a channel a rule uses is not deleted', async () => {
    const mail = await emailChannel();
    await rule([mail._id], { name: 'Uses mail' });
    const del = await call('DELETE', `/api/notification-channels/${mail._id}`);
    expect(del.statusCode).toBe(409);
    expect(del.json().message).toContain('Uses mail');
  });
});

describe('the webhook payload', () => {
  it('is documented in the OpenAPI document', async () => {
    const doc = (await call('GET', '/api/docs/json')).json();
    const schema = doc.components.schemas.AlertWebhookPayload;
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['deliveryId', 'type', 'sentAt', 'rule', 'summary', 'alerts', 'total']),
    );
    expect(schema.description).toContain('Fleetdesk-Signature');
  });
});

describe('alert rules', () => {
  it('validates the time zone, quiet hours, scope and channels', async () => {
    const mail = await emailChannel();
    const bad = await call('POST', '/api/alert-rules', {
      name: 'r',
      events: ['drift'],
      channelIds: [mail._id],
      quietStart: '22:00',
      quietEnd: '07:00',
      timeZone: 'Mars/Olympus',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields.timeZone).toBe('Must be a time zone such as Europe/Berlin');
    const noTz = await call('POST', '/api/alert-rules', {
      name: 'r',
      events: ['drift'],
      channelIds: [mail._id],
      quietStart: '22:00',
      quietEnd: '07:00',
    });
    expect(noTz.json().fields).toEqual({ timeZone: 'Quiet hours need a time zone' });
    const brand = await call('POST', '/api/alert-rules', {
      name: 'r',
      events: ['drift'],
      channelIds: [mail._id],
      scope: 'brand',
    });
    expect(brand.json().fields).toEqual({ brandId: 'Choose a brand for this scope' });
    const ok = await rule([mail._id], { quietStart: '22:00', quietEnd: '07:00', timeZone: 'Europe/Berlin' });
    expect(ok).toMatchObject({
      timeZone: 'Europe/Berlin',
      channels: [{ _id: mail._id, name: 'Ops mail', kind: 'email' }],
    });
  });
});

describe('delivery', () => {
  it('sends one alert per problem, no repeat while it lasts, and its resolution once with the duration', async () => {
    const mail = await emailChannel();
    await rule([mail._id]);
    const d = await domain();
    const now = Date.now();
    await setCheck(d.id, 'failing', new Date(now - (2 * 60 + 14) * 60_000));
    expect((await evaluate(new Date(now))).opened).toBe(1);
    await settled();
    await evaluate(new Date(now + 1000));
    await evaluate(new Date(now + 2000));
    await settled();
    expect(smtp.mails.map((m) => m.subject)).toEqual([`[Fleetdesk] CRITICAL: Site over HTTPS failing on ${d.name}`]);
    expect(smtp.mails[0]!.text).toContain('HTTP 502');
    expect(smtp.mails[0]!.html).toContain('Site over HTTPS failing');

    await setCheck(d.id, 'ok', new Date(now + 3000));
    expect((await evaluate(new Date(now + 3000))).resolved).toBe(1);
    await settled();
    await evaluate(new Date(now + 4000));
    await settled();
    expect(smtp.mails).toHaveLength(2);
    expect(smtp.mails[1]!.subject).toBe(
      `[Fleetdesk] RESOLVED: Site over HTTPS failing on ${d.name}, resolved after 2 h 14 min`,
    );
    const alerts = (await call('GET', '/api/alerts')).json().data;
    expect(alerts.items).toMatchObject([
      { state: 'resolved', event: 'health_failing', deliveries: 2, subjectId: d.id },
    ]);
  });

  it('waits the rule’s minutes of failing, and reminds after the interval at most', async () => {
    const chat = await telegramChannel();
    await rule([chat._id], { healthMinutes: 15, reminderMinutes: 60 });
    const d = await domain();
    const now = Date.now();
    await setCheck(d.id, 'failing', new Date(now - 5 * 60_000));
    await evaluate(new Date(now));
    expect(await deliveries()).toHaveLength(0);
    await evaluate(new Date(now + 11 * 60_000));
    await settled();
    expect(tg.messages).toHaveLength(1);
    await evaluate(new Date(now + 40 * 60_000));
    expect(await deliveries()).toHaveLength(1);
    await sleep(1100); // the simulator's one message a second per chat
    await evaluate(new Date(now + 75 * 60_000));
    await settled();
    expect(tg.messages).toHaveLength(2);
    expect(tg.messages[1]!.text).toMatch(/^STILL CRITICAL: Site over HTTPS failing on .*, for 1 h 20 min/);
  });

  it('summarises many problems at once into one message per rule and channel', async () => {
    const hook = await webhookChannel();
    await rule([hook._id]);
    const now = Date.now();
    for (let i = 0; i < 30; i++) await setCheck((await domain()).id, 'failing', new Date(now - 60_000));
    await evaluate(new Date(now));
    await settled();
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.valid).toBe(true);
    const body = JSON.parse(hooks[0]!.body);
    expect(body).toMatchObject({ type: 'alert.summary', total: 30 });
    expect(body.summary).toBe(`30 alerts for rule "${body.rule.name}": 30 new.`);
    const d = (await deliveries())[0]!;
    expect(d.text).toContain('… and 10 more');
    expect(d.subject).toBe('[Fleetdesk] 30 alerts: 30 new');
  });

  it('holds messages during quiet hours and sends them when they end', async () => {
    const mail = await emailChannel();
    const now = new Date();
    const hhmm = (d: Date) => d.toISOString().slice(11, 16);
    await rule([mail._id], {
      quietStart: hhmm(new Date(now.getTime() - 60 * 60_000)),
      quietEnd: hhmm(new Date(now.getTime() + 60 * 60_000)),
      timeZone: 'UTC',
    });
    await setCheck((await domain()).id, 'failing', new Date(now.getTime() - 60_000));
    await evaluate(now);
    expect(await deliveries()).toHaveLength(0);
    expect(await t.c.services.alerts.held(now)).toBe(1);
    await evaluate(new Date(now.getTime() + 61 * 60_000));
    await settled();
    expect(smtp.mails).toHaveLength(1);
  });

  it('scopes domain problems to a brand', async () => {
    const mail = await emailChannel();
    const brand = await created('/api/brands', { name: 'Acme' });
    await rule([mail._id], { scope: 'brand', brandId: brand._id });
    const now = Date.now();
    await setCheck((await domain(null)).id, 'failing', new Date(now - 60_000));
    const mine = await domain(brand._id);
    await setCheck(mine.id, 'failing', new Date(now - 60_000));
    await evaluate(new Date(now));
    await settled();
    expect(smtp.mails.map((m) => m.subject)).toEqual([`[Fleetdesk] CRITICAL: Site over HTTPS failing on ${mine.name}`]);
  });

  it('a rule on the Traffic fell check fires for a domain whose kept traffic fell past its brand’s limit', async () => {
    const mail = await emailChannel();
    await rule([mail._id], { scope: 'filter', filter: { failingCheck: 'traffic_fell' } });
    const brand = await created('/api/brands', { name: 'Falling', trafficFallPercent: 30 });
    const [cloud] = rowsOf<{ id: string }>(
      await t.c.database.db.execute(sql`insert into clouds (email) values ('ops@example.com') returning id`),
    );
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    /** A domain of the brand with a zone, its 14 kept days: 1,000 requests a day, then `after` a day. */
    const zoned = async (after: number) => {
      const d = await domain(brand._id);
      await t.c.database.db.execute(
        sql`update domains set cloud_id = ${cloud!.id}, cloud_zone_id = ${`zone-${d.id}`} where id = ${d.id}`,
      );
      const days = Array.from({ length: 14 }, (_, i) => ({
        domainId: d.id,
        day: day(-14 + i),
        requests: i < 7 ? 1_000 : after,
        pageViews: 0,
        visits: 0,
        threats: 0,
        bytes: 0,
        status2xx: 0,
        status3xx: 0,
        status4xx: 0,
        status5xx: 0,
      }));
      await t.c.repos.traffic.keep({
        domainId: d.id,
        zoneId: `zone-${d.id}`,
        readAt: new Date(),
        keepFrom: day(-36),
        days,
      });
      // The check as the health cycle runs it: read from what is kept, stored.
      return { ...d, check: await t.c.services.health.recheck(d.id, 'traffic_fell') };
    };
    const fell = await zoned(500);
    const held = await zoned(800);
    expect(fell.check.state).toBe('failing');
    expect(held.check.state).toBe('ok');
    // Another check failing on another domain is not this rule's.
    await setCheck((await domain()).id, 'failing', new Date(Date.now() - 60_000));

    await evaluate();
    await settled();
    expect(smtp.mails.map((m) => m.subject)).toEqual([`[Fleetdesk] CRITICAL: Traffic fell failing on ${fell.name}`]);
    expect(smtp.mails[0]!.text).toContain('7,000 → 3,500 requests (fell 50 %)');
  });

  it('retries after a channel’s temporary failure and logs both attempts', async () => {
    const mail = await emailChannel();
    await rule([mail._id]);
    smtp.refuse(451, 'Try again later');
    await setCheck((await domain()).id, 'failing', new Date(Date.now() - 60_000));
    await evaluate();
    const d = (await settled(40_000))[0]!;
    expect(d).toMatchObject({ status: 'sent', attempts: 2 });
    expect(smtp.mails).toHaveLength(1);
    const log = (await call('GET', '/api/alerts/deliveries')).json().data.items;
    expect(log.map((l: { outcome: string }) => l.outcome)).toEqual(['sent', 'retrying']);
    expect(log[1]!.answer).toMatch(/^SMTP: .* refused: 451 Try again later/);
  }, 60_000);

  it('waits out Telegram’s 429 retry_after and delivers', async () => {
    const chat = await telegramChannel();
    await rule([chat._id]);
    tg.fail({ status: 429, retryAfter: 1 });
    await setCheck((await domain()).id, 'failing', new Date(Date.now() - 60_000));
    await evaluate();
    const d = (await settled())[0]!;
    expect(d.status).toBe('sent');
    expect(tg.messages).toHaveLength(1);
  });

  /** The delivery job's next start, once its first attempt asked for a later one; the job is dropped after. */
  const laterRetry = async () => {
    for (let i = 0; i < 100; i++) {
      const log = (await call('GET', '/api/alerts/deliveries')).json().data.items;
      if (log.length) break;
      await sleep(100);
    }
    await sleep(3000); // ALERTS_RETRY_SECONDS is 1: the back-off alone would have retried by now
    const q = sql`select start_after as "at" from pgboss.job where name = 'alerts.deliver' and state = 'created'`;
    const [job] = rowsOf<{ at: Date }>(await t.c.database.db.execute(q));
    await t.c.database.db.execute(sql`delete from pgboss.job where name = 'alerts.deliver' and state = 'created'`);
    const log = (await call('GET', '/api/alerts/deliveries')).json().data.items;
    return { at: job ? new Date(job.at).getTime() : null, log };
  };

  it('honours a Telegram retry_after of any length: past the 30 s waited in place, the job retries no sooner', async () => {
    const chat = await telegramChannel();
    await rule([chat._id]);
    tg.fail({ status: 429, retryAfter: 45 });
    await setCheck((await domain()).id, 'failing', new Date(Date.now() - 60_000));
    const t0 = Date.now();
    await evaluate();
    const { at, log } = await laterRetry();
    expect(tg.messages).toHaveLength(0);
    expect(log.map((l: { outcome: string }) => l.outcome)).toEqual(['retrying']);
    expect(log[0].answer).toBe('Telegram: 429 Too Many Requests: retry after 45 (retry after 45 s)');
    expect(at).toBeGreaterThanOrEqual(t0 + 44_000);
  }, 30_000);

  it('honours a webhook’s Retry-After on 503 (and 429)', async () => {
    const hook = await webhookChannel();
    await rule([hook._id]);
    hookStatus = 503;
    hookRetryAfter = '60';
    await setCheck((await domain()).id, 'failing', new Date(Date.now() - 60_000));
    const t0 = Date.now();
    await evaluate();
    const { at, log } = await laterRetry();
    expect(hooks).toHaveLength(1);
    expect(log[0].answer).toBe('Webhook: HTTP 503 Service Unavailable (retry after 60 s)');
    expect(at).toBeGreaterThanOrEqual(t0 + 59_000);
  }, 30_000);

  it('alerts once on a failed job (an event, never resolved)', async () => {
    const mail = await emailChannel();
    await rule([mail._id]);
    const before = new Date(Date.now() - 1000);
    await t.c.services.alerts.evaluate(before);
    await t.c.database.db.execute(sql`insert into jobs (kind, area, payload, state, error, finished_at)
      values ('fleet.run', 'cnv:domains', '{"planId":"0b7c8f3e-1d2a-4c5b-9e8f-7a6b5c4d3e2f","planNo":7}'::jsonb,
        'failed', 'Cloudflare: 10000 Authentication error', now())`);
    await evaluate(new Date(Date.now() + 1000));
    await settled();
    await evaluate(new Date(Date.now() + 2000));
    await settled();
    expect(smtp.mails).toHaveLength(1);
    // Named by its plan, not by its job's number (issue 47), and the code said in words with Cloudflare's text kept.
    expect(smtp.mails[0]!.subject).toBe('[Fleetdesk] CRITICAL: Fleet plan #7 failed');
    expect(smtp.mails[0]!.text).toContain("Cloudflare refused the credentials: check the cloud's API token");
    expect(smtp.mails[0]!.text).toContain('Cloudflare: 10000 Authentication error');
    const [problem] = (await call('GET', '/api/alerts')).json().data.items;
    expect(problem).toMatchObject({ subjectKind: 'plan', subjectName: 'Fleet plan #7' });
  });

  it('other modules raise and resolve problems through the service (launches)', async () => {
    const mail = await emailChannel();
    await rule([mail._id], { events: ['launch_finished'], minSeverity: 'info' });
    await t.c.services.alerts.event({
      key: 'launch:1',
      event: 'launch_finished',
      severity: 'info',
      title: 'Launch of shop.example finished',
      subject: { kind: 'launch', id: '1', name: 'shop.example' },
    });
    await evaluate();
    await settled();
    expect(smtp.mails.map((m) => m.subject)).toEqual(['[Fleetdesk] INFO: Launch of shop.example finished']);
  });
});

describe('delivery when the delivering process dies', () => {
  const patchSend = (wrap: (orig: (...a: any[]) => Promise<string>, ...a: any[]) => Promise<string>) => {
    const svc = t.c.services.notificationChannels as { send: (...a: any[]) => Promise<string> };
    const orig = svc.send;
    let once = true;
    svc.send = async (...a: any[]) => {
      if (!once) return orig(...a);
      once = false;
      return wrap(orig, ...a);
    };
    return () => (svc.send = orig);
  };

  it('dies after recording the attempt, before the provider: sent once on the retry', async () => {
    const mail = await emailChannel();
    await rule([mail._id]);
    const undo = patchSend(async () => {
      throw new Error('process killed before the SMTP call');
    });
    try {
      await setCheck((await domain()).id, 'failing', new Date(Date.now() - 60_000));
      await evaluate();
      const d = (await settled(30_000))[0]!;
      expect(d).toMatchObject({ status: 'sent', attempts: 2 });
    } finally {
      undo();
    }
    expect(smtp.mails).toHaveLength(1);
  }, 40_000);

  it('dies after the provider accepted, before the record: sent again with the same id, which the receiver drops', async () => {
    const hook = await webhookChannel();
    await rule([hook._id]);
    const undo = patchSend(async (orig, ...a) => {
      await orig(...a);
      throw new Error('process killed after the webhook answered');
    });
    try {
      await setCheck((await domain()).id, 'failing', new Date(Date.now() - 60_000));
      await evaluate();
      await settled(30_000);
    } finally {
      undo();
    }
    expect(hooks).toHaveLength(2);
    expect(hooks[0]!.id).toBe(hooks[1]!.id);
    expect(hooks[0]!.body).toBe(hooks[1]!.body);
    expect(new Set(hooks.map((x) => x.id)).size).toBe(1);
  }, 40_000);

  it('dies after the record, before the job noted the step: never sent again', async () => {
    const mail = await emailChannel();
    await rule([mail._id]);
    await setCheck((await domain()).id, 'failing', new Date(Date.now() - 60_000));
    await evaluate();
    const d = (await settled())[0]!;
    // The step runs again, as it does when a worker dies between the record and the step's end.
    expect(await t.c.services.alerts.deliver(d.id, 2)).toMatchObject({ status: 'skipped' });
    expect(smtp.mails).toHaveLength(1);
  });
});

describe('message words', () => {
  it('says how long a problem lasted and when quiet hours end', () => {
    expect(humanDuration((2 * 60 + 14) * 60_000)).toBe('2 h 14 min');
    expect(humanDuration(45 * 60_000)).toBe('45 min');
    expect(humanDuration((26 * 60 + 5) * 60_000)).toBe('1 d 2 h');
    const at = new Date('2026-01-10T23:30:00Z');
    const quiet = { quietStart: '22:00', quietEnd: '07:00', timeZone: 'Europe/Berlin' };
    expect(releaseTime(quiet, at).toISOString()).toBe('2026-01-11T06:00:00.000Z');
    expect(releaseTime(quiet, new Date('2026-01-10T12:00:00Z')).toISOString()).toBe('2026-01-10T12:00:00.000Z');
  });
});
