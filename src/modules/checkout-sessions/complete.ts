import type { OperationContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import {
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { type OrderShipping, placeOrder, planOrder } from '../orders/index.js';
import { recordCheckoutPayment } from '../payments/index.js';
import type { CheckoutBuyer, CheckoutMessage, CheckoutPayment, CheckoutSession } from './model.js';
import { checkoutNotReady, saveSession } from './operations.js';
import { decidePayment, type PaymentDecision, spendToken } from './payment.js';
import { isClosed, presentCheckout, sessionClosed, sessionRow, statusAt } from './service.js';
import type { CheckoutSessionRow } from './tables.js';

// Completing a session: the handler decides the payment first (nothing written); an authorized
// payment places the order, records the payment and closes the session in ONE unit of work under
// the session's row lock, so concurrent completions make one order and a token pays once.

export interface CompleteInput {
  id: string;
  payment: CheckoutPayment;
  buyer?: CheckoutBuyer | undefined;
  /** The service's public origin, for an absolute `continueUrl` (UCP escalation). */
  baseUrl?: string | undefined;
  /**
   * What a binding writes with the order, in the completion's unit of work (UCP: the order
   * webhook for the platform): it commits with the order or not at all.
   */
  onPlaced?: ((u: UnitOfWork, session: CheckoutSession) => Promise<void>) | undefined;
}

function shippingOf(row: CheckoutSessionRow): OrderShipping | null {
  const chosen = row.fulfillmentOptions.find((o) => o.id === row.selectedFulfillmentOptionId);
  if (chosen?.type !== 'shipping') return null;
  return { optionId: chosen.id, name: chosen.title, amountCents: chosen.amount, address: row.address };
}

const changedMeanwhile = () =>
  new AppError(
    'conflict',
    'The checkout session changed while it was being completed; read it and complete again',
    undefined,
    1,
  );

/** The session's answer to a payment that did not go through: declined, or escalated to the buyer. */
function unpaid(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<CheckoutSession>,
  input: CompleteInput,
  decision: Exclude<PaymentDecision, { kind: 'authorized' }>,
) {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const row = await sessionRow(u.tx, ctx.tenantId, input.id, true);
    if (statusAt(row, u.now) !== 'ready') throw changedMeanwhile();
    const kept = row.messages.filter((m) => m.target?.kind !== 'payment');
    const message: CheckoutMessage =
      decision.kind === 'declined'
        ? {
            type: 'error',
            code: 'payment_declined',
            content: decision.reason,
            target: { kind: 'payment' },
            resolution: 'recoverable',
          }
        : {
            type: 'error',
            code: 'requires_escalation',
            content: 'The buyer must confirm this payment at continueUrl',
            target: { kind: 'payment' },
            resolution: 'requires_buyer_review',
          };
    const escalated = decision.kind === 'escalate';
    const after = await saveSession(u, row, {
      messages: [...kept, message],
      ...(escalated
        ? {
            status: 'requires_escalation' as const,
            continueUrl: `${input.baseUrl ?? 'http://localhost'}/checkout/${u.ctx.tenantId}/${row.id}`,
          }
        : {}),
    });
    return presentCheckout(after, u.now);
  });
}

/**
 * Pays and places the order. Not ready: 409 checkout_not_ready (the messages say why); closed:
 * 409 checkout_session_closed; a bad token or a handler the session does not offer: 400
 * payment_token_invalid. A declined payment answers the session with a payment_declined message
 * and no order; an escalated one moves it to requires_escalation with a continueUrl.
 */
export async function completeCheckout(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: CompleteInput,
  key: OperationKey<CheckoutSession>,
): Promise<CheckoutSession> {
  const now = deps.clock.now();
  const row = await sessionRow(deps.db, ctx.tenantId, input.id);
  const status = statusAt(row, now);
  if (isClosed(status)) throw sessionClosed(status);
  if (status !== 'ready') throw checkoutNotReady(presentCheckout(row, now));
  const total = { id: row.id, currency: row.currency, total: row.totalCents };
  const decision = await decidePayment(deps.db, ctx.tenantId, row.protocol, input.payment, total, now);
  if (decision.kind !== 'authorized') return unpaid(deps, ctx, key, input, decision);
  const plan = await planOrder(
    deps,
    ctx,
    { cartId: row.cartId, currency: row.currency },
    { sessionId: row.id, shipping: shippingOf(row) },
  );
  if (plan.order.totalCents !== row.totalCents) throw changedMeanwhile();
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const locked = await sessionRow(u.tx, ctx.tenantId, row.id, true);
    const now = statusAt(locked, u.now);
    if (isClosed(now)) throw sessionClosed(now);
    if (locked.version !== row.version || now !== 'ready') throw changedMeanwhile();
    if (decision.tokenRow) await spendToken(u, decision.tokenRow, plan.order.id);
    const placed = await placeOrder(u, plan, row.totalCents);
    const payment = await recordCheckoutPayment(u, {
      accountId: `checkout_session:${row.id}`,
      amountCents: row.totalCents,
      currency: row.currency,
      orderId: placed.order.id,
      resolvedBy: decision.reference,
    });
    const after = await saveSession(u, locked, {
      status: 'completed',
      orderId: placed.order.id,
      paymentSessionId: payment.id,
      buyer: input.buyer ? { ...locked.buyer, ...input.buyer } : locked.buyer,
      messages: [],
      continueUrl: null,
    });
    await u.audit({
      action: 'checkout_session.complete',
      resourceType: 'checkout_session',
      resourceId: row.id,
      details: { orderId: placed.order.id, paymentSessionId: payment.id, totalCents: row.totalCents },
    });
    const session = presentCheckout(after, u.now);
    await input.onPlaced?.(u, session);
    return session;
  });
}
