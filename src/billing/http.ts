import { AppError } from '../core/errors.js';
import type { BillingResult } from './adapter.js';

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
