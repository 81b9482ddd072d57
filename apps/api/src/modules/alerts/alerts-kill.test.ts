import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_DELIVERY_HEADER } from '@fleetdesk/contract';
import type { Container } from '../../container.ts';
import type { Database } from '../../db/client.ts';
import { systemActor } from '../../http/context.ts';
import { createFaultDatabase, faultProcesses, startWatcher } from '../../test/fault-processes.ts';
import { realPostgresUrl } from '../../test/real-postgres.ts';

/**
 * A worker killed with SIGKILL while its webhook call is in flight (the receiver has the message, the worker
 * never records the answer): another worker takes the job over and sends the same message again, with the same
 * delivery id and body, so the receiver can drop the repeat; the delivery ends sent, once (decision 046).
 * PostgreSQL only, like jobs/fault.test.ts.
 */
const BASE_URL = realPostgresUrl('modules/alerts/alerts-kill.test.ts', 'the kill -9 delivery test needs');
const APP_KEY = crypto.randomBytes(32).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!BASE_URL)('alert delivery when the worker is killed mid-send (PostgreSQL)', () => {
  let database: Database;
  let c: Container;
  let drop: (() => Promise<void>) | undefined;
  let dbUrl: string;
  let receiver: http.Server;
  const received: { id: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-alerts-kill-'));
  const procs = faultProcesses({
    dbUrl: () => dbUrl,
    dataDir,
    appKey: APP_KEY,
    env: {
      JOB_HEARTBEAT_SECONDS: '1',
      JOB_TAKEOVER_SECONDS: '3',
      ALERTS_RETRY_SECONDS: '1',
      // The receiver listens on loopback.
      ALERT_ALLOW_PRIVATE_DESTINATIONS: '1',
    },
  });
  const spawnWorker = () => procs.start('worker');

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (ch: Buffer) => chunks.push(ch));
      req.on('end', () => {
        received.push({
          id: String(req.headers[WEBHOOK_DELIVERY_HEADER.toLowerCase()]),
          body: Buffer.concat(chunks).toString(),
          headers: req.headers,
        });
        // The first answer comes too late: the worker that sent it is killed meanwhile.
        setTimeout(() => res.end('ok'), received.length === 1 ? 4000 : 0);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const db = await createFaultDatabase(BASE_URL!);
    ({ database, drop } = db);
    dbUrl = db.url;
    // This process only queues and watches.
    c = await startWatcher({ database, dbUrl, dataDir, appKey: APP_KEY, env: { ALERTS_GROUP_SECONDS: '0' } });
  }, 120_000);

  afterAll(async () => {
    procs.killAll();
    await c?.close().catch(() => undefined);
    await new Promise((r) => receiver?.close(r));
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('is sent again with the same id after a kill -9 between the send and the record, and ends sent once', async () => {
    const actor = systemActor('test');
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const channel = await c.services.notificationChannels.create(
      { name: 'Hook', kind: 'webhook', webhookUrl: url },
      actor,
    );
    await c.services.alertRules.create(
      { name: 'All', events: ['health_failing'], healthMinutes: 0, channelIds: [channel._id] },
      actor,
    );
    const db = c.database.db;
    const [d] = (
      (await db.execute(
        sql`insert into domains (domain_name, domain_name_unicode) values ('kill.example', 'kill.example') returning id`,
      )) as unknown as { rows: { id: string }[] }
    ).rows;
    await db.execute(sql`insert into domain_health_checks (domain_id, check_key, state, since, last_run)
      values (${d!.id}, 'site_https', 'failing', now() - interval '1 hour', now())`);
    await c.services.alerts.evaluate();

    const a = await spawnWorker();
    for (let i = 0; i < 400 && !received.length; i++) await sleep(50);
    expect(received).toHaveLength(1);
    await procs.kill9(a);

    await spawnWorker();
    const status = async () =>
      (
        (await db.execute(sql`select status, attempts from alert_deliveries`)) as unknown as {
          rows: { status: string; attempts: number }[];
        }
      ).rows;
    for (let i = 0; i < 600 && (await status())[0]?.status !== 'sent'; i++) await sleep(100);
    expect(await status()).toEqual([{ status: 'sent', attempts: 2 }]);
    expect(received).toHaveLength(2);
    expect(received[1]!.id).toBe(received[0]!.id);
    expect(received[1]!.body).toBe(received[0]!.body);
    // Both deliveries verify with Standard Webhooks' reference library, under the same webhook-id.
    const secret = (await c.services.notificationChannels.reveal(channel._id, 'webhookSecret', actor)).value!;
    for (const r of received) {
      expect(new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).toEqual(JSON.parse(r.body));
      expect(r.headers['webhook-id']).toBe(r.id);
    }
    const log = (
      (await db.execute(sql`select outcome from alert_delivery_log`)) as unknown as { rows: { outcome: string }[] }
    ).rows;
    expect(log.map((l) => l.outcome)).toEqual(['sent']);
  }, 120_000);
});
