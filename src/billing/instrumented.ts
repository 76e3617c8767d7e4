import type { Metrics } from '../observability/metrics.js';
import { inSpan, SpanKind, tracingOn } from '../observability/tracing.js';
import type { BillingAdapter, BillingResult } from './adapter.js';

/** Methods that do no I/O: not calls to the billing system. */
const LOCAL = new Set<PropertyKey>(['isAccountId']);

type Outcome = 'ok' | 'failure' | 'error';

const outcomeOf = (result: unknown): Outcome =>
  (result as BillingResult<unknown> | undefined)?.ok === false ? 'failure' : 'ok';

/**
 * Each call of the adapter counted and timed (billing_adapter_calls_total, its latency) by
 * outcome: `ok`, `failure` (a refusal the billing system answered) or `error` (it threw: the
 * system unavailable); with tracing on, each call is a client span of the operation that made it.
 */
export function instrumentAdapter(adapter: BillingAdapter, metrics: Metrics): BillingAdapter {
  if (!metrics.enabled && !tracingOn()) return adapter;
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || LOCAL.has(property)) return value;
      const method = String(property);
      return (...args: unknown[]) =>
        inSpan(
          `billing ${target.name}.${method}`,
          SpanKind.CLIENT,
          { 'commerce.billing.adapter': target.name, 'commerce.billing.method': method },
          async (span) => {
            const started = performance.now();
            let outcome: Outcome = 'error';
            try {
              const result = await value.apply(target, args);
              outcome = outcomeOf(result);
              span?.setAttribute('commerce.billing.outcome', outcome);
              return result;
            } finally {
              metrics.billingCall(target.name, method, outcome, (performance.now() - started) / 1000);
            }
          },
        );
    },
  });
}
