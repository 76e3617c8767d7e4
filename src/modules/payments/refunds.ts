import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { type BillingAdapter, type Invoice, requireCapability } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { PageRequest } from '../../core/paging.js';
import type { Queryable, Tx } from '../../db/client.js';
import { rowsAfter } from '../../db/keyset.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import {
  abandonIntent,
  anyCallTookEffect,
  beginIntent,
  type Intent,
  type OperationKey,
  pendingPlanOf,
  type ResumeIntent,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { lockSession } from './service.js';
import { paymentSessions, type RefundReason, type RefundStatus, refunds } from './tables.js';

// A refund gives back part or all of a successful payment session. The amount is reserved on the
// session (`refunded_cents`, under its row lock) together with the refund row, so parallel refunds
// never give back more than was paid: the second one that would overdraw is refused
// (`refund_exceeds_remaining`). A session paying an invoice has the refund recorded in the billing
// system (a credit note against the invoice's payment) through an intent, like every billing
// effect; one without an invoice is refunded locally at once.

export type RefundRow = typeof refunds.$inferSelect;

export interface RefundApi {
  id: string;
  paymentSessionId: string;
  accountId: string;
  invoiceId: string | null;
  amountCents: number;
  currency: string;
  reason: RefundReason;
  note: string | null;
  status: RefundStatus;
  failureMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

export function presentRefund(r: RefundRow): RefundApi {
  return {
    id: r.id,
    paymentSessionId: r.paymentSessionId,
    accountId: r.accountId,
    invoiceId: r.invoiceId,
    amountCents: r.amountCents,
    currency: r.currency,
    reason: r.reason,
    note: r.note,
    status: r.status,
    failureMessage: r.failureMessage,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  };
}

export interface RefundRequest {
  sessionId: string;
  /** Default: what is left to refund. */
  amountCents?: number;
  reason: RefundReason;
  note?: string;
  /** Scope: must be the session's invoice. */
  invoiceId?: string;
}

/** A refund as decided and reserved; JSON, kept in its intent. */
export interface RefundPlan {
  refundId: string;
  sessionId: string;
  invoiceId: string;
  amountCents: number;
  currency: string;
  reason: RefundReason;
}

export async function getRefund(db: Queryable, tenantId: string, id: string) {
  const [row] = await db
    .select()
    .from(refunds)
    .where(tenantWhere(refunds, tenantId, eq(refunds.id, id)));
  return row;
}

const noIntegration = () =>
  new AppError('conflict', 'The tenant has no active billing integration to record the refund in');

/** Refunds matching the filters, newest first; with a page, `limit + 1` rows after its key. */
export function listRefunds(
  db: Queryable,
  tenantId: string,
  filters: { paymentId?: string; accountId?: string; status?: RefundStatus },
  page: PageRequest | null,
) {
  const query = db
    .select()
    .from(refunds)
    .where(
      tenantWhere(
        refunds,
        tenantId,
        and(
          filters.paymentId ? eq(refunds.paymentSessionId, filters.paymentId) : undefined,
          filters.accountId ? eq(refunds.accountId, filters.accountId) : undefined,
          filters.status ? eq(refunds.status, filters.status) : undefined,
          page?.after ? rowsAfter([refunds.createdAt, refunds.id], page.after, true) : undefined,
        ),
      ),
    )
    .orderBy(desc(refunds.createdAt), desc(refunds.id));
  return page ? query.limit(page.limit + 1) : query;
}

/** Moves `amountCents` into (positive) or out of (negative) the session's refunded total. */
async function moveRefunded(q: Queryable, tenantId: string, sessionId: string, amountCents: number) {
  await q
    .update(paymentSessions)
    .set({ refundedCents: sql`${paymentSessions.refundedCents} + ${amountCents}` })
    .where(tenantWhere(paymentSessions, tenantId, eq(paymentSessions.id, sessionId)));
}

/** The refund's amount, checked against the locked session: what is left, never more. */
function refundAmount(row: typeof paymentSessions.$inferSelect, input: RefundRequest): number {
  if (row.status !== 'success')
    throw new AppError(
      'payment_not_refundable',
      `Payment session ${row.id} is ${row.status}: only a successful payment can be refunded`,
    );
  if (input.invoiceId !== undefined && input.invoiceId !== row.invoiceId)
    throw validationFailed(
      'invoiceId',
      'matches',
      `invoiceId must be the invoice the session paid (${row.invoiceId ?? 'none'})`,
    );
  const remaining = row.amountCents - row.refundedCents;
  const amount = input.amountCents ?? remaining;
  if (remaining === 0 || amount > remaining)
    throw new AppError(
      'refund_exceeds_remaining',
      `Payment session ${row.id} has ${remaining} of ${row.amountCents} ${row.currency} left to refund; ${amount} asked`,
    );
  return amount;
}

const newRefundRow = (
  tenantId: string,
  session: typeof paymentSessions.$inferSelect,
  input: RefundRequest,
  amountCents: number,
  status: RefundStatus,
  now: Date,
): RefundRow => ({
  tenantId,
  id: uuidv7(),
  paymentSessionId: session.id,
  accountId: session.accountId,
  invoiceId: session.invoiceId,
  amountCents,
  currency: session.currency,
  reason: input.reason,
  note: input.note ?? null,
  status,
  failureMessage: null,
  createdAt: now,
  updatedAt: now,
});

async function emitCreated(u: UnitOfWork, refund: RefundApi) {
  await u.audit({
    action: 'refund.create',
    resourceType: 'refund',
    resourceId: refund.id,
    details: { paymentSessionId: refund.paymentSessionId, amountCents: refund.amountCents },
  });
  await u.emit('refund.created', refund);
}

/** A session without an invoice: nothing to record in the billing system; refunded at once. */
function refundLocally(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<RefundApi>,
  input: RefundRequest,
): Promise<RefundApi> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const row = await lockSession(u.tx, ctx.tenantId, input.sessionId);
    if (!row) throw notFound('Payment session');
    const amount = refundAmount(row, input);
    const refund = newRefundRow(ctx.tenantId, row, input, amount, 'succeeded', u.now);
    await u.tx.insert(refunds).values(refund);
    await moveRefunded(u.tx, ctx.tenantId, row.id, amount);
    const presented = presentRefund(refund);
    await emitCreated(u, presented);
    await u.emit('refund.succeeded', presented);
    return presented;
  });
}

/** Writes the pending refund and reserves its amount on the locked session `row`. */
async function reserve(
  tx: Queryable,
  tenantId: string,
  row: typeof paymentSessions.$inferSelect,
  input: RefundRequest,
  amount: number,
  now: Date,
): Promise<RefundPlan> {
  const refund = newRefundRow(tenantId, row, input, amount, 'pending', now);
  await tx.insert(refunds).values(refund);
  await moveRefunded(tx, tenantId, row.id, amount);
  return {
    refundId: refund.id,
    sessionId: row.id,
    invoiceId: row.invoiceId as string,
    amountCents: amount,
    currency: row.currency,
    reason: input.reason,
  };
}

/**
 * For an operation that refunds as one of its steps (a cancellation): in its transaction, the
 * session locked, the amount checked against what is left and reserved with a pending refund. The
 * operation makes the billing call with `refundCall` and commits with `commitRefund`, or drops
 * the reservation with `dropRefund` when nothing took effect.
 */
export async function reserveRefund(
  tx: Queryable,
  tenantId: string,
  input: RefundRequest & { amountCents: number },
  now: Date,
): Promise<RefundPlan> {
  const row = await lockSession(tx, tenantId, input.sessionId);
  if (!row) throw notFound('Payment session');
  if (!row.invoiceId)
    throw new AppError('payment_not_refundable', `Payment session ${row.id} paid no invoice`);
  return reserve(tx, tenantId, row, input, refundAmount(row, input), now);
}

type Decision = { kind: 'local' } | { kind: 'billing'; intent: Intent<RefundPlan>; resumed: boolean };

/** Under the session lock: the amount reserved with a pending refund and its intent (or a retry's). */
function decide(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<RefundApi>,
  input: RefundRequest,
  adapter: BillingAdapter | null,
): Promise<Decision> {
  return deps.db.transaction(async (tx) => {
    const row = await lockSession(tx, ctx.tenantId, input.sessionId);
    if (!row) throw notFound('Payment session');
    const spec = (plan: RefundPlan) => ({
      operation: 'payments.refund',
      recovery: 'roll_forward' as const,
      subject: { type: 'refund', id: plan.refundId },
      plan,
      steps: [{ step: 'refund', kind: 'refund_payment' as const }],
    });
    const earlier = await pendingPlanOf<RefundPlan>(tx, ctx.tenantId, key.id);
    if (earlier)
      return { kind: 'billing', intent: await beginIntent(tx, deps, ctx, key, spec(earlier)), resumed: true };
    const amount = refundAmount(row, input);
    if (!row.invoiceId) return { kind: 'local' };
    if (!adapter) throw noIntegration();
    requireCapability(adapter, 'refunds');
    const plan = await reserve(tx, ctx.tenantId, row, input, amount, deps.clock.now());
    return { kind: 'billing', intent: await beginIntent(tx, deps, ctx, key, spec(plan)), resumed: false };
  });
}

/** Nothing was recorded in the billing system: the pending refund and its reservation go. */
export const dropRefund = (tenantId: string, plan: RefundPlan) => async (tx: Tx) => {
  const gone = await tx
    .delete(refunds)
    .where(tenantWhere(refunds, tenantId, eq(refunds.id, plan.refundId), eq(refunds.status, 'pending')))
    .returning({ id: refunds.id });
  if (gone.length > 0) await moveRefunded(tx, tenantId, plan.sessionId, -plan.amountCents);
};

async function setStatus(u: UnitOfWork, plan: RefundPlan, status: RefundStatus, failure: string | null) {
  const [row] = await u.tx
    .update(refunds)
    .set({ status, failureMessage: failure, updatedAt: u.now })
    .where(tenantWhere(refunds, u.ctx.tenantId, eq(refunds.id, plan.refundId)))
    .returning();
  if (!row) throw notFound('Refund');
  return presentRefund(row);
}

/** The refund's billing call, as a step of `intent` (named `step`). */
export function refundCall(intent: Intent, step: string, adapter: BillingAdapter, plan: RefundPlan) {
  const refund = requireCapability(adapter, 'refunds');
  return intent.call(
    step,
    (idempotencyKey) =>
      refund(plan.invoiceId, {
        paymentReference: plan.sessionId,
        amountCents: plan.amountCents,
        currency: plan.currency,
        reason: plan.reason,
        idempotencyKey,
      }),
    (invoice: Invoice) => ({ invoiceId: invoice.id }),
  );
}

/** In the unit of work recording the billing call's success: the refund `succeeded`, its events. */
export async function commitRefund(u: UnitOfWork, plan: RefundPlan): Promise<RefundApi> {
  const done = await setStatus(u, plan, 'succeeded', null);
  await emitCreated(u, done);
  await u.emit('refund.succeeded', done);
  return done;
}

/** The billing call with the intent's key, then the commit of its outcome. */
async function executeRefund(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<RefundApi>,
  intent: Intent<RefundPlan>,
  adapter: BillingAdapter,
  resumed: boolean,
  resolvedBy: 'operation' | 'reconciler' = 'operation',
): Promise<RefundApi> {
  const plan = intent.plan;
  try {
    const result = await refundCall(intent, 'refund', adapter, plan);
    if (!result.ok) {
      // Refused on a retry after an earlier attempt's outcome was unknown: the refund is known and
      // fails visibly. Refused at once: the request fails and leaves nothing.
      if (!resumed)
        throw new AppError('conflict', `The billing system refused the refund: ${result.failure.message}`);
      return await runUnitOfWork(deps, ctx, key, async (u) => {
        const failed = await setStatus(u, plan, 'failed', result.failure.message);
        await moveRefunded(u.tx, ctx.tenantId, plan.sessionId, -plan.amountCents);
        await emitCreated(u, failed);
        await u.emit('refund.failed', failed);
        await intent.complete(u, resolvedBy);
        return failed;
      });
    }
    return await runUnitOfWork(deps, ctx, key, async (u) => {
      const done = await commitRefund(u, plan);
      await intent.complete(u, resolvedBy);
      return done;
    });
  } catch (err) {
    await abandonIntent(deps, intent, adapter, err, dropRefund(ctx.tenantId, plan));
    throw err;
  }
}

/**
 * The newest successful session paying one of `invoiceIds` with at least `amountCents` left to
 * refund (a cancellation refunds the subscription's last payment); null when none has.
 */
export async function refundableSession(
  db: Queryable,
  tenantId: string,
  invoiceIds: readonly string[],
  amountCents: number,
): Promise<string | null> {
  if (invoiceIds.length === 0) return null;
  const [row] = await db
    .select({ id: paymentSessions.id })
    .from(paymentSessions)
    .where(
      tenantWhere(
        paymentSessions,
        tenantId,
        inArray(paymentSessions.invoiceId, [...invoiceIds]),
        eq(paymentSessions.status, 'success'),
        sql`${paymentSessions.amountCents} - ${paymentSessions.refundedCents} >= ${amountCents}`,
      ),
    )
    .orderBy(desc(paymentSessions.createdAt), desc(paymentSessions.id))
    .limit(1);
  return row?.id ?? null;
}

/**
 * Refunds `amountCents` (default: what is left) of a successful payment session. Over what is left:
 * 409 refund_exceeds_remaining; not successful: 409 payment_not_refundable; a billing system
 * without refunds: 501 capability_unavailable.
 */
export async function createRefund(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: RefundRequest,
  key: OperationKey<RefundApi>,
): Promise<RefundApi> {
  const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
  const decided = await decide(deps, ctx, key, input, adapter);
  if (decided.kind === 'local') return refundLocally(deps, ctx, key, input);
  if (!adapter)
    throw new AppError('conflict', 'The tenant has no active billing integration to record the refund in');
  return executeRefund(deps, ctx, key, decided.intent, adapter, decided.resumed);
}

/** The reconciler finishing a refund left pending: the same call (same key), then the commit. */
export const resumeRefund: ResumeIntent = async (deps, intent) => {
  const plan = intent.plan as RefundPlan;
  const ctx = {
    tenantId: intent.row.tenantId,
    keyId: intent.row.actorKeyId,
    requestId: intent.row.requestId,
  };
  const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
  if (!adapter) throw new Error('no billing integration to finish the refund with');
  if (!(await anyCallTookEffect(deps, intent, adapter, dropRefund(ctx.tenantId, plan)))) return 'abandoned';
  await executeRefund(
    deps,
    ctx,
    { id: intent.row.operationId },
    intent as Intent<RefundPlan>,
    adapter,
    true,
    'reconciler',
  );
  return 'completed';
};
