import { z } from 'zod';
import { ChannelSendError } from '../../integrations/notify/errors.ts';
import type { AlertsService } from '../../modules/alerts/alerts.service.ts';
import { PermanentJobError, RetryLaterError, defineJob, type RetryPolicy } from '../registry.ts';

export const ALERTS_EVALUATE_JOB = 'alerts.evaluate';
export const ALERTS_DELIVER_JOB = 'alerts.deliver';
/** About 16 minutes of retries in all (15 s doubling), enough for a provider's short outage. */
export const DELIVERY_RETRY: RetryPolicy = { limit: 6, delaySeconds: 15, backoff: true };

/** The periodic run (decision 046): problems in step with their sources, messages owed, due ones dispatched. */
export const alertsEvaluateJob = (alerts: () => AlertsService) =>
  defineJob({
    kind: ALERTS_EVALUATE_JOB,
    area: 'cnv:domains',
    payload: z.object({}).passthrough(),
    // The next run picks up whatever this one did not reach.
    retry: { limit: 0, delaySeconds: 10, backoff: false },
    timeoutSeconds: 10 * 60,
    async handler() {
      return alerts().evaluate();
    },
  });

/** One message to one channel: recorded before and after the provider's call, retried with back-off. */
export const alertsDeliverJob = (alerts: () => AlertsService, retry: RetryPolicy = DELIVERY_RETRY) =>
  defineJob({
    kind: ALERTS_DELIVER_JOB,
    area: 'cnv:domains',
    payload: z.object({ deliveryId: z.uuid() }),
    steps: () => [{ key: 'send', label: 'Send the message' }],
    retry,
    timeoutSeconds: 5 * 60,
    async handler(ctx) {
      const out = await ctx
        .step('send', () => alerts().deliver(ctx.payload.deliveryId, ctx.attempt, ctx.signal))
        .catch((err: unknown) => {
          // The provider's own wait (Telegram's retry_after, a webhook's Retry-After), however long: no sooner.
          if (err instanceof ChannelSendError && err.retryAfterSeconds !== undefined)
            throw new RetryLaterError(err.message, err.retryAfterSeconds);
          throw err;
        });
      if (out?.status === 'failed') throw new PermanentJobError(out.answer ?? 'The message could not be delivered');
      return { status: out?.status ?? 'sent', answer: out?.answer ?? null };
    },
  });
