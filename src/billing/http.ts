import { AppError } from '../core/errors.js';
import {
  BILLING_CAPABILITIES,
  type BillingAdapter,
  type BillingCapability,
  type BillingResult,
} from './adapter.js';

/**
 * The value of an adapter result, or the matching API error: not_found -> 404 naming `what`,
 * invalid -> 400 naming the field, conflict -> 409. (Outages were thrown; the error handler
 * answers them with 502.)
 */
export function unwrapBilling<T>(result: BillingResult<T>, what: string): T {
  if (result.ok) return result.value;
  const { kind, message, field } = result.failure;
  if (kind === 'not_found') throw new AppError('not_found', `${what} not found`);
  if (kind === 'invalid') {
    throw new AppError('validation_failed', message, [{ field: field ?? 'body', rule: 'billing', message }]);
  }
  throw new AppError('conflict', message);
}

/**
 * `adapter`'s method for an optional capability, bound; without it, `501 capability_unavailable`
 * naming the capability and the adapter.
 */
export function requireCapability<C extends BillingCapability>(
  adapter: BillingAdapter,
  capability: C,
): NonNullable<BillingAdapter[(typeof BILLING_CAPABILITIES)[C]]> {
  const method = adapter[BILLING_CAPABILITIES[capability]];
  if (typeof method !== 'function')
    throw new AppError(
      'capability_unavailable',
      `The tenant's billing system (${adapter.name}) does not support the '${capability}' capability`,
    );
  return method.bind(adapter) as NonNullable<BillingAdapter[(typeof BILLING_CAPABILITIES)[C]]>;
}
