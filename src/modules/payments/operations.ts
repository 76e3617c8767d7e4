import type { BillingRegistry } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, validationFailed } from '../../core/errors.js';
import type { Queryable } from '../../db/client.js';
import { type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { insertSession, type NewSession, type PaymentSessionApi, presentSession } from './service.js';
import { type SettleOutcome, settleSession } from './settlement.js';

/** An invoice a session may pay: known to the billing system (else 400), open, same currency (else 409). */
async function checkInvoice(
  deps: { db: Queryable; billing: BillingRegistry },
  tenantId: string,
  invoiceId: string,
  currency: string,
) {
  const adapter = await deps.billing.forTenant(deps.db, tenantId);
  const result = adapter ? await adapter.getInvoice(invoiceId) : undefined;
  if (!result?.ok) {
    if (result && result.failure.kind !== 'not_found') throw new AppError('conflict', result.failure.message);
    throw validationFailed('invoiceId', 'exists', 'invoiceId is not an invoice the billing system knows');
  }
  const invoice = result.value;
  if (invoice.status !== 'open')
    throw new AppError('conflict', `Invoice ${invoiceId} is ${invoice.status}, not open`);
  if (invoice.currency !== currency)
    throw new AppError(
      'conflict',
      `Invoice ${invoiceId} is in ${invoice.currency}, the session in ${currency}`,
    );
}

/** POST /payments and POST /invoices/{id}/pay: a pending session, paying an open invoice if one is named. */
export async function createSession(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: NewSession,
  key: OperationKey<PaymentSessionApi>,
): Promise<PaymentSessionApi> {
  if (input.invoiceId) await checkInvoice(deps, ctx.tenantId, input.invoiceId, input.currency);
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const session = presentSession(await insertSession(u.tx, ctx.tenantId, input, u.now));
    await u.audit({ action: 'payment.create', resourceType: 'payment_session', resourceId: session.id });
    await u.emit('payment.session_created', session);
    return session;
  });
}

const alreadyTerminal = () =>
  new AppError('invalid_state', 'The payment session is already in a terminal status', [
    { field: 'status', rule: 'terminal', message: 'success, failed and cancelled are terminal' },
  ]);

/**
 * POST /payments/{id}/complete: force-marks the session `success` (with external proof of
 * payment), settling the invoice it pays first. Terminal already: 400 invalid_state; the billing
 * system refuses the settlement: 409 and the session stays as it was.
 */
export async function completeSession(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { sessionId: string },
  key: OperationKey<SettleOutcome>,
): Promise<SettleOutcome> {
  const outcome = await settleSession(deps, ctx, key, {
    sessionId: input.sessionId,
    resolvedBy: 'complete',
    audit: {
      action: 'payment.complete',
      resourceType: 'payment_session',
      resourceId: input.sessionId,
      details: { before: { status: 'pending' }, after: { status: 'success' } },
    },
  });
  if (outcome.kind === 'terminal') throw alreadyTerminal();
  if (outcome.kind === 'refused')
    throw new AppError('conflict', `The billing system refused the settlement: ${outcome.message}`);
  return outcome;
}
