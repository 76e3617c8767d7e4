import { action } from '../../core/actions.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, validationFailed } from '../../core/errors.js';
import { type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { isOrganizationId, resolveAccount } from '../accounts/index.js';
import { insertSession, type NewSession, type PaymentSessionApi, presentSession } from './service.js';
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

/** POST /payments and POST /invoices/{id}/pay: a pending session, paying an open invoice if one is named. */
export async function createSession(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: NewSession,
  key: OperationKey<PaymentSessionApi>,
): Promise<PaymentSessionApi> {
  const values = input.invoiceId
    ? { ...input, accountId: await checkInvoice(deps, ctx.tenantId, input) }
    : input;
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const session = presentSession(await insertSession(u.tx, ctx.tenantId, values, u.now));
    await u.audit({ action: 'payment.create', resourceType: 'payment_session', resourceId: session.id });
    await u.emit('payment.session_created', session);
    return session;
  });
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
