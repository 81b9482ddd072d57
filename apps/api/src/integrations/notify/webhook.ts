import { createHmac } from 'node:crypto';
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_SIGNATURE_HEADER } from '@fleetdesk/contract';
import { providerFetch } from '../provider-calls.ts';
import { type DestinationPolicy, destinationAgent, hostOf, refusalOf } from './destination.ts';
import { ChannelSendError, isTimeout, readBounded, statusLine } from './errors.ts';

const PROVIDER = 'Webhook';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<body>">` keyed by the secret's text, as Stripe signs its events. */
export function signWebhook(secret: string, body: string, t: number) {
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/**
 * Standard Webhooks' `webhook-signature`: `v1,<base64 HMAC-SHA256 over "<id>.<t>.<body>">`, keyed by the bytes the
 * secret's base64 (after `whsec_`) stands for. Node's decoder also reads the base64url of secrets made before
 * decision 059, so their key is the same 32 bytes.
 */
export function signStandardWebhook(secret: string, id: string, t: number, body: string) {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${t}.${body}`).digest('base64')}`;
}

/** A `Retry-After` value (delay-seconds or an HTTP date) in whole seconds from now; undefined when unreadable. */
export function parseRetryAfter(v: string | null | undefined, now = Date.now()): number | undefined {
  const s = v?.trim();
  if (!s) return undefined;
  if (/^\d+$/.test(s)) return Number(s);
  const at = Date.parse(s);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * POSTs a JSON body to the channel's URL, signed twice: Standard Webhooks' headers (`webhook-id` is the delivery
 * id, the same on every retry) and our older `Fleetdesk-Signature` for receivers written for it.
 */
export function createWebhookClient(o: { timeoutMs?: number; destinations?: DestinationPolicy } = {}) {
  const fetch = providerFetch('webhook');
  const timeoutMs = o.timeoutMs ?? 10_000;
  const dispatcher = destinationAgent(o.destinations ?? { allowPrivate: false });
  return {
    async post(
      c: { url: string; secret: string },
      body: string,
      deliveryId: string,
      signal?: AbortSignal,
    ): Promise<string> {
      const t = Math.floor(Date.now() / 1000);
      let res;
      try {
        res = await fetch(c.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Fleetdesk-Alerts/1',
            'webhook-id': deliveryId,
            'webhook-timestamp': String(t),
            'webhook-signature': signStandardWebhook(c.secret, deliveryId, t, body),
            [WEBHOOK_SIGNATURE_HEADER]: signWebhook(c.secret, body, t),
            [WEBHOOK_DELIVERY_HEADER]: deliveryId,
          },
          body,
          redirect: 'manual',
          dispatcher,
          signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        if (signal?.aborted) throw err;
        if (isTimeout(err))
          throw new ChannelSendError(PROVIDER, `no answer within ${timeoutMs / 1000} s`, true, { timeout: true });
        const refused = refusalOf(err);
        if (refused) throw new ChannelSendError(PROVIDER, `refused: ${refused.message}`, false);
        // The host only: the URL's path may itself be a credential, and undici's message repeats the URL.
        throw new ChannelSendError(PROVIDER, `cannot reach ${hostOf(c.url)}`, true);
      }
      // The receiver's body is neither shown nor stored (decision 058): only the status line.
      await readBounded(res.body as ReadableStream<Uint8Array> | null, 8 * 1024);
      const answer = statusLine(res.status);
      if (res.status >= 200 && res.status < 300) return answer;
      const temporary = res.status >= 500 || res.status === 408 || res.status === 429;
      // The receiver's own wait (RFC 9110 allows it on 429 and 503): the retry comes no sooner.
      const retryAfter =
        res.status === 429 || res.status === 503 ? parseRetryAfter(res.headers.get('retry-after')) : undefined;
      throw new ChannelSendError(
        PROVIDER,
        retryAfter === undefined ? answer : `${answer} (retry after ${retryAfter} s)`,
        temporary,
        {
          upstreamStatus: res.status,
          retryAfterSeconds: retryAfter,
        },
      );
    },
  };
}
export type WebhookClient = ReturnType<typeof createWebhookClient>;
