import type { Metrics } from '../../../observability/metrics.js';
import { inSpan, SpanKind } from '../../../observability/tracing.js';
import type { Sender, SendOutcome } from './sender.js';

const outcomeOf = (sent: SendOutcome) =>
  sent.ok ? 'succeeded' : sent.timedOut ? 'timeout' : sent.responseStatus !== null ? 'rejected' : 'error';

/**
 * Each attempt counted and timed by outcome (webhook_deliveries_total and its latency) and, with
 * tracing on, a client span naming the receiver's host and its answer.
 */
export function observedSender(sender: Sender, metrics: Metrics): Sender {
  return {
    send: (url, body, headers, cancel, target) =>
      inSpan(
        'webhook send',
        SpanKind.CLIENT,
        { 'server.address': new URL(url).hostname, 'http.request.method': 'POST' },
        async (span) => {
          const sent = await sender.send(url, body, headers, cancel, target);
          const outcome = outcomeOf(sent);
          metrics.deliveryAttempt(outcome, sent.durationMs / 1000);
          span?.setAttributes({
            'commerce.webhook.outcome': outcome,
            ...(sent.responseStatus !== null ? { 'http.response.status_code': sent.responseStatus } : {}),
          });
          return sent;
        },
      ),
    close: () => sender.close(),
  };
}
