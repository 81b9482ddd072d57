import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelSendError } from './errors.ts';
import { createWebhookClient, parseRetryAfter, signStandardWebhook } from './webhook.ts';

// The webhook client against a receiver on loopback, judged by Standard Webhooks' reference library.
let server: http.Server;
let url: string;
let answer: { status: number; headers?: Record<string, string> } = { status: 200 };
const got: { body: string; headers: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.status === 200 ? 'ok' : 'busy');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise((r) => server.close(r)));

const client = createWebhookClient({ timeoutMs: 5000, destinations: { allowPrivate: true } });

describe('webhook signatures', () => {
  it('verify with the standardwebhooks library, beside the Fleetdesk-Signature of before', async () => {
    answer = { status: 200 };
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const body = JSON.stringify({ type: 'test', summary: 'Ünïcode ✓ 🚀' });
    expect(await client.post({ url, secret }, body, 'delivery-1')).toBe('HTTP 200 OK');
    const { headers, body: received } = got.at(-1)!;
    expect(new Webhook(secret).verify(received, headers as Record<string, string>)).toEqual(JSON.parse(body));
    expect(headers['webhook-id']).toBe('delivery-1');
    expect(headers['fleetdesk-delivery']).toBe('delivery-1');
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
    const t = headers['webhook-timestamp'];
    const hex = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(headers['fleetdesk-signature']).toBe(`t=${t},v1=${hex}`);
    // Another secret, or a changed body, does not verify.
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(received, headers as Record<string, string>),
    ).toThrow();
    expect(() => new Webhook(secret).verify(`${received} `, headers as Record<string, string>)).toThrow();
  });

  it('keys a secret made before in base64url by the same bytes, which the library reads in standard base64', () => {
    const bytes = randomBytes(32);
    const old = `whsec_${bytes.toString('base64url')}`;
    const standard = `whsec_${bytes.toString('base64')}`;
    const t = Math.floor(Date.now() / 1000);
    const body = '{"a":1}';
    const headers = { 'webhook-id': 'x', 'webhook-timestamp': String(t) };
    const sig = signStandardWebhook(old, 'x', t, body);
    expect(sig).toBe(signStandardWebhook(standard, 'x', t, body));
    expect(new Webhook(standard).verify(body, { ...headers, 'webhook-signature': sig })).toEqual({ a: 1 });
  });
});

describe('Retry-After', () => {
  it('is read in seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('travels with a 429 and a 503 as the wait before the retry; another status keeps the back-off', async () => {
    const fail = async () => {
      try {
        await client.post({ url, secret: `whsec_${randomBytes(32).toString('base64')}` }, '{}', 'd');
      } catch (err) {
        return err as ChannelSendError;
      }
      throw new Error('the post did not fail');
    };
    answer = { status: 429, headers: { 'retry-after': '120' } };
    expect(await fail()).toMatchObject({
      temporary: true,
      retryAfterSeconds: 120,
      message: 'Webhook: HTTP 429 Too Many Requests (retry after 120 s)',
    });
    answer = { status: 503, headers: { 'retry-after': new Date(Date.now() + 30_000).toUTCString() } };
    const e503 = await fail();
    expect(e503.retryAfterSeconds).toBeGreaterThanOrEqual(28);
    expect(e503.retryAfterSeconds).toBeLessThanOrEqual(30);
    answer = { status: 500, headers: { 'retry-after': '120' } };
    expect(await fail()).toMatchObject({
      temporary: true,
      retryAfterSeconds: undefined,
      message: 'Webhook: HTTP 500 Internal Server Error',
    });
  });
});
