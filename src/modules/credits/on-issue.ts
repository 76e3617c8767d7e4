import { type BillingAdapter, capabilitiesOf, type Invoice } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import {
  derivedKey,
  type Intent,
  type OperationKey,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { type ApplyPlan, applyCredit, applyOperation, type CreditApplication } from './operations.js';
import { autoApplyTarget } from './service.js';

// Credit on issue: a tenant with `autoApplyCredits` has an account's credit applied to each
// invoice issued to it. An operation that commits before it answers (an order, an operator's
// invoice) reserves the credit in its own unit of work and applies it after the commit; one that
// answers with the credited invoice from its commit (subscriptions) applies it before.

const onIssueKey = (issuedBy: Pick<OperationKey, 'id'>, invoice: Invoice) =>
  derivedKey<CreditApplication>(['credits.apply-on-issue', issuedBy.id, invoice.id]);

/** Credit reserved for an invoice in the issuing unit of work, applied after its commit. */
export type ReservedCredit = { intent: Intent<ApplyPlan>; invoice: Invoice } | null;

/**
 * In the issuing unit of work: the account's credit reserved for `invoice` under an intent of its
 * own, when the tenant applies credit on issue, the billing system takes credit and the account
 * has some; null otherwise. It commits with the invoice's issue, so a process stopped before the
 * application leaves it to the reconciler, which makes the call.
 */
export async function reserveCreditOnIssue(
  u: UnitOfWork,
  deps: ServiceDeps,
  adapter: BillingAdapter,
  invoice: Invoice | null,
  issuedBy: Pick<OperationKey, 'id'>,
): Promise<ReservedCredit> {
  if (invoice?.status !== 'open' || invoice.balanceCents <= 0 || !capabilitiesOf(adapter).includes('credits'))
    return null;
  const found = await autoApplyTarget(u.tx, u.ctx.tenantId, invoice, u.now);
  if (!found || found.balanceCents <= 0) return null;
  const key = onIssueKey(issuedBy, invoice);
  try {
    const run = { deps, ctx: u.ctx, key, input: null, claim: null, resumed: false };
    const { intent } = await applyOperation.begin(u.tx, run, {
      invoice,
      accountId: found.accountId,
      onIssue: true,
    });
    return { intent, invoice };
  } catch (err) {
    // Spent meanwhile (the balance read before the ledger lock): nothing to apply.
    if (err instanceof AppError && err.code === 'no_credit_available') return null;
    throw err;
  }
}

/**
 * After the issuing commit: the reserved credit applied, and the invoice as it is then; null when
 * none was reserved or it was not applied now (a failure is logged; a pending one is the
 * reconciler's).
 */
export async function applyReservedCredit(
  deps: ServiceDeps,
  ctx: OperationContext,
  adapter: BillingAdapter,
  reserved: ReservedCredit,
): Promise<Invoice | null> {
  if (!reserved) return null;
  const key = { id: reserved.intent.row.operationId };
  try {
    const run = { deps, ctx, key, input: null, claim: null, resumed: false };
    return (await applyOperation.proceed(run, reserved.intent, adapter)).invoice;
  } catch (err) {
    deps.logger.warn(
      { err, tenantId: ctx.tenantId, invoiceId: reserved.invoice.id },
      'credit not applied on issue',
    );
    return null;
  }
}

/**
 * After an operation issued `invoice`: applies the account's credit to it when the tenant applies
 * credit on issue and the account has some, and returns the invoice as it is then (read again
 * when an earlier attempt of the issuing operation may have applied credit already). Best effort:
 * a failure leaves the invoice open and the credit in the ledger (both consistent), and is logged.
 */
export async function applyCreditOnIssue(
  deps: ServiceDeps,
  ctx: OperationContext,
  invoice: Invoice | null,
  issuedBy: Pick<OperationKey, 'id'>,
): Promise<Invoice | null> {
  if (invoice?.status !== 'open' || invoice.balanceCents <= 0) return invoice;
  const found = await autoApplyTarget(deps.db, ctx.tenantId, invoice, deps.clock.now());
  if (!found) return invoice;
  try {
    if (found.balanceCents > 0)
      return (await applyCredit(deps, ctx, { invoiceId: invoice.id }, onIssueKey(issuedBy, invoice))).invoice;
    if (!found.appliedBefore) return invoice;
    const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
    const fresh = adapter ? await adapter.getInvoice(invoice.id) : null;
    return fresh?.ok ? fresh.value : invoice;
  } catch (err) {
    deps.logger.warn({ err, tenantId: ctx.tenantId, invoiceId: invoice.id }, 'credit not applied on issue');
    return invoice;
  }
}
