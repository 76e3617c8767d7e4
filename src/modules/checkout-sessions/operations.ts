import type { OperationContext } from '../../core/context.js';
import type { OperationKey, ServiceDeps } from '../../unit-of-work/index.js';
import type {
  CheckoutBuyer,
  CheckoutChange,
  CheckoutPayment,
  CheckoutProtocol,
  CheckoutSession,
  DelegatedToken,
  DelegatePaymentInput,
} from './model.js';

// INTERFACE FIRST (being implemented): the signatures the protocol bindings call.

export interface CreateCheckoutInput {
  protocol: CheckoutProtocol;
  /** Default: the tenant's default currency (USD). */
  currency?: string | undefined;
  change: CheckoutChange;
  platform?: { webhookUrl?: string | null; profileUrl?: string | null };
}

/** 201: a new session, priced, with its messages. Unknown products and zero quantities are messages. */
export function createCheckout(
  _deps: ServiceDeps,
  _ctx: OperationContext,
  _input: CreateCheckoutInput,
  _key: OperationKey<CheckoutSession>,
): Promise<CheckoutSession> {
  throw new Error('not implemented yet');
}

/**
 * Applies a change (absent fields unchanged; with `replace`, absent fields cleared: UCP PUT).
 * 404 not_found; 409 checkout_session_closed once completed or canceled.
 */
export function updateCheckout(
  _deps: ServiceDeps,
  _ctx: OperationContext,
  _input: { id: string; change: CheckoutChange; replace?: boolean },
  _key: OperationKey<CheckoutSession>,
): Promise<CheckoutSession> {
  throw new Error('not implemented yet');
}

/** The session (404 not_found for another tenant's id or an unknown one). */
export function getCheckout(
  _deps: ServiceDeps,
  _ctx: OperationContext,
  _id: string,
): Promise<CheckoutSession> {
  throw new Error('not implemented yet');
}

/**
 * Pays and places the order. Not ready: 409 checkout_not_ready (the messages say why); closed:
 * 409 checkout_session_closed; a bad token: 400 payment_token_invalid (param names it). A
 * declined payment answers the session with a payment_declined message and no order.
 */
export function completeCheckout(
  _deps: ServiceDeps,
  _ctx: OperationContext,
  _input: { id: string; payment: CheckoutPayment; buyer?: CheckoutBuyer | undefined; baseUrl?: string },
  _key: OperationKey<CheckoutSession>,
): Promise<CheckoutSession> {
  throw new Error('not implemented yet');
}

/** Cancels an open session; 409 checkout_session_closed once completed or canceled (ACP answers 405). */
export function cancelCheckout(
  _deps: ServiceDeps,
  _ctx: OperationContext,
  _input: { id: string },
  _key: OperationKey<CheckoutSession>,
): Promise<CheckoutSession> {
  throw new Error('not implemented yet');
}

/** ACP delegate_payment: a one-use token (its `id`, shown once) bound to its allowance. */
export function delegatePayment(
  _deps: ServiceDeps,
  _ctx: OperationContext,
  _input: DelegatePaymentInput,
  _key: OperationKey<DelegatedToken>,
): Promise<DelegatedToken> {
  throw new Error('not implemented yet');
}
