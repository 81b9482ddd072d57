import { createHmac } from 'node:crypto';
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_SIGNATURE_HEADER } from '@fleetdesk/contract';
import { providerFetch } from '../provider-calls.ts';
import { type DestinationPolicy, destinationAgent, hostOf, refusalOf } from './destination.ts';
import { ChannelSendError, isTimeout, readBounded, statusLine } from './errors.ts';

const PROVIDER = 'Webhook';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<body>">`, as Stripe signs its events. */
export function signWebhook(secret: string, body: string, t: number) {
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** POSTs a JSON body to the channel's URL, signed; the delivery id travels in its own header on every retry. */
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
      throw new ChannelSendError(PROVIDER, answer, temporary, { upstreamStatus: res.status });
    },
  };
}
export type WebhookClient = ReturnType<typeof createWebhookClient>;
