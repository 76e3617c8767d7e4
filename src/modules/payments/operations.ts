import { action } from '../../core/actions.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, validationFailed } from '../../core/errors.js';
import type { Queryable } from '../../db/client.js';
import {
  type ModuleLookups,
  type OperationKey,
  type PayableOrder,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { isOrganizationId, resolveAccount } from '../accounts/index.js';
import {
  insertCapturedSession,
  insertSession,
  type NewSession,
  openSessionsCents,
  type PaymentSessionApi,
  presentSession,
} from './service.js';
import { type SettleOutcome, settleSession } from './settlement.js';

/**
 * An invoice a session may pay: known to the billing system (else 400), open, same currency (else
 * 409), paid by its own account for at most its balance (else 400). Returns the billing account
 * the session is for: `accountId` is the invoice's billing account, or a local account of this
 * tenant linked to it (`externalId`), which is resolved to it.
 */
async function checkInvoice(
  deps: ServiceDeps,
  tenantId: string,
  input: Pick<NewSession, 'invoiceId' | 'accountId' | 'amountCents' | 'currency'>,
): Promise<string> {
  const invoiceId = input.invoiceId as string;
  const currency = input.currency;
  const adapter = await deps.billing.forTenant(deps.db, tenantId);
  const result = adapter ? await adapter.getInvoice(invoiceId) : undefined;
  if (!result?.ok) {
    if (result && result.failure.kind !== 'not_found') throw new AppError('conflict', result.failure.message);
    throw validationFailed('invoiceId', 'exists', 'invoiceId is not an invoice the billing system knows');
  }
  const invoice = result.value;
  if (invoice.status !== 'open')
    throw new AppError(
      'invoice_not_open',
      `Invoice ${invoiceId} is ${invoice.status}, not open: it takes no payment`,
      undefined,
      undefined,
      [action('accountInvoices', 'GET', `/accounts/${invoice.accountId}/invoices`, 'read')],
    );
  if (invoice.currency !== currency)
    throw new AppError(
      'conflict',
      `Invoice ${invoiceId} is in ${invoice.currency}, the session in ${currency}`,
    );
  if (input.accountId !== invoice.accountId) {
    const local = isOrganizationId(input.accountId)
      ? await resolveAccount(deps, tenantId, input.accountId)
      : undefined;
    if (local?.source !== 'local' || local.account.externalId !== invoice.accountId)
      throw validationFailed(
        'accountId',
        'matches',
        `accountId must be the invoice's billing account (${invoice.accountId}) or a local account linked to it`,
      );
  }
  if (input.amountCents > invoice.balanceCents)
    throw validationFailed(
      'amountCents',
      'maximum',
      `amountCents is above the invoice's balance (${invoice.balanceCents}); pay at most the balance`,
    );
  return invoice.accountId;
}

const notAnOrder = () => validationFailed('orderId', 'exists', 'orderId is not an order of this tenant');

const PAID: readonly string[] = ['paid', 'partially_refunded', 'refunded'];

const orderAlreadyPaid = (orderId: string) =>
  new AppError(
    'order_already_paid',
    `Order ${orderId} is paid: it takes no further payment session`,
    [{ field: 'orderId', rule: 'unpaid', message: 'the order is paid in full' }],
    undefined,
    [action('order', 'GET', `/orders/${orderId}`, 'read')],
  );

/** What is left to pay on the order, given what its open sessions already ask for. */
const leftToPay = (order: PayableOrder, pendingCents: number) =>
  Math.max(0, order.dueCents - order.paidCents - pendingCents);

/**
 * The order a session pays, before any billing call: named (`orderId`: this tenant's, in the
 * session's currency, its invoice if invoiced; else 400 naming `orderId`) or found by the invoice
 * paid. A paid order: 409 order_already_paid. Returns the input with the order and its invoice.
 */
async function linkOrder(deps: ServiceDeps, tenantId: string, input: NewSession): Promise<NewSession> {
  const orderId =
    input.orderId ??
    (input.invoiceId ? await deps.lookups.orderOfInvoice(deps.db, tenantId, input.invoiceId) : null);
  if (!orderId) return input;
  const order = await deps.lookups.order(deps.db, tenantId, orderId);
  if (!order) throw notAnOrder();
  if (input.invoiceId && order.invoiceId !== input.invoiceId)
    throw validationFailed(
      'orderId',
      'matches',
      `the order is paid through ${order.invoiceId ? `its invoice ${order.invoiceId}` : 'sessions without an invoice'}, not invoice ${input.invoiceId}`,
    );
  if (order.currency !== input.currency)
    throw validationFailed('currency', 'matches', `currency must be the order's (${order.currency})`);
  if (PAID.includes(order.paymentStatus)) throw orderAlreadyPaid(order.id);
  return { ...input, orderId, invoiceId: order.invoiceId };
}

/**
 * Under the order's row lock, in the session's unit of work: the order takes this session only
 * for what is left once its payments and open sessions are counted, so two concurrent sessions
 * never ask more than it is due.
 */
async function reserveOnOrder(
  lookups: ModuleLookups,
  tx: Queryable,
  tenantId: string,
  orderId: string,
  amountCents: number,
) {
  const order = await lookups.order(tx, tenantId, orderId, true);
  if (!order) throw notAnOrder();
  if (PAID.includes(order.paymentStatus)) throw orderAlreadyPaid(order.id);
  const open = await openSessionsCents(tx, tenantId, orderId);
  const left = leftToPay(order, open);
  if (left === 0)
    throw new AppError(
      'conflict',
      `Order ${orderId} has open payment sessions for the ${open} left to pay: complete them or wait for their outcome`,
      [{ field: 'orderId', rule: 'covered', message: 'open payment sessions cover what is left to pay' }],
      undefined,
      [action('order', 'GET', `/orders/${orderId}`, 'read')],
    );
  if (amountCents > left)
    throw validationFailed(
      'amountCents',
      'maximum',
      `amountCents is above what is left to pay on order ${orderId} (${left}); pay at most that`,
    );
}

/**
 * POST /payments and POST /invoices/{id}/pay: a pending session, paying an open invoice if one is
 * named and the order if one is named (or is the invoice's).
 */
export async function createSession(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: NewSession,
  key: OperationKey<PaymentSessionApi>,
): Promise<PaymentSessionApi> {
  const linked = await linkOrder(deps, ctx.tenantId, input);
  const values = linked.invoiceId
    ? { ...linked, accountId: await checkInvoice(deps, ctx.tenantId, linked) }
    : linked;
  return runUnitOfWork(deps, ctx, key, async (u) => {
    if (values.orderId)
      await reserveOnOrder(deps.lookups, u.tx, ctx.tenantId, values.orderId, values.amountCents);
    const session = presentSession(await insertSession(u.tx, ctx.tenantId, values, u.now));
    await u.audit({ action: 'payment.create', resourceType: 'payment_session', resourceId: session.id });
    await u.emit('payment.session_created', session);
    return session;
  });
}

/**
 * In the caller's unit of work: a payment a checkout's handler took for `orderId` (written paid by
 * the same unit), as a `success` session with its events.
 */
export async function recordCheckoutPayment(
  u: UnitOfWork,
  input: { accountId: string; amountCents: number; currency: string; orderId: string; resolvedBy: string },
): Promise<PaymentSessionApi> {
  const session = presentSession(await insertCapturedSession(u.tx, u.ctx.tenantId, input, u.now));
  await u.audit({ action: 'payment.create', resourceType: 'payment_session', resourceId: session.id });
  await u.emit('payment.session_created', session);
  await u.emit('payment.succeeded', session);
  return session;
}

const alreadyTerminal = (sessionId: string) =>
  new AppError(
    'session_terminal',
    'The payment session is already in a terminal status',
    [{ field: 'status', rule: 'terminal', message: 'success, failed and cancelled are terminal' }],
    undefined,
    [action('self', 'GET', `/payments/${sessionId}`, 'read')],
  );

/**
 * POST /payments/{id}/complete: force-marks the session `success` (with external proof of
 * payment, whose reference `proof` the audit entry keeps), settling the invoice it pays first. Terminal already: 400 invalid_state; the billing
 * system refuses the settlement: 409 and the session stays as it was.
 */
export async function completeSession(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { sessionId: string; proof?: string | undefined },
  key: OperationKey<SettleOutcome>,
): Promise<SettleOutcome> {
  const outcome = await settleSession(deps, ctx, key, {
    sessionId: input.sessionId,
    resolvedBy: 'complete',
    audit: {
      action: 'payment.complete',
      resourceType: 'payment_session',
      resourceId: input.sessionId,
      details: {
        before: { status: 'pending' },
        after: { status: 'success' },
        ...(input.proof !== undefined ? { proof: input.proof } : {}),
      },
    },
  });
  if (outcome.kind === 'terminal') throw alreadyTerminal(input.sessionId);
  if (outcome.kind === 'refused')
    throw new AppError('conflict', `The billing system refused the settlement: ${outcome.message}`);
  return outcome;
}
