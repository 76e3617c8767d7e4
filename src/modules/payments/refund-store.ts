import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { type BillingAdapter, type Invoice, requireCapability } from '../../billing/index.js';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { PageRequest } from '../../core/paging.js';
import type { Queryable, Tx } from '../../db/client.js';
import { rowsAfter } from '../../db/keyset.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { Intent, ModuleLookups, UnitOfWork } from '../../unit-of-work/index.js';
import type { RestockLine } from '../stock/index.js';
import { planRefundRestock, type RefundRestock } from './refund-restock.js';
import { lockSession, sessionBusy } from './service.js';
import { paymentSessions, type RefundReason, type RefundStatus, refunds } from './tables.js';

// The refunds' records: reads, the reservation on the session, and the commit of an outcome.

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
  restock: RestockLine[];
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
    restock: r.restock ?? [],
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
  /** Put every unit of the paid order left back in stock once the refund succeeds. */
  restock?: boolean;
  /** Put these units of the paid order back in stock once the refund succeeds. */
  restockItems?: RestockLine[];
}

/** A refund as decided and reserved; JSON, kept in its intent. */
export interface RefundPlan {
  refundId: string;
  sessionId: string;
  invoiceId: string;
  amountCents: number;
  currency: string;
  reason: RefundReason;
  /** The order's units that come back in stock when the refund succeeds (absent: none). */
  restock?: RefundRestock;
  /** An intent written before per-line restock: every unit of this order left comes back. */
  restockOrderId?: string;
}

export async function getRefund(db: Queryable, tenantId: string, id: string) {
  const [row] = await db
    .select()
    .from(refunds)
    .where(tenantWhere(refunds, tenantId, eq(refunds.id, id)));
  return row;
}

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
export async function moveRefunded(q: Queryable, tenantId: string, sessionId: string, amountCents: number) {
  await q
    .update(paymentSessions)
    .set({ refundedCents: sql`${paymentSessions.refundedCents} + ${amountCents}` })
    .where(tenantWhere(paymentSessions, tenantId, eq(paymentSessions.id, sessionId)));
}

/** The refund's amount, checked against the locked session: what is left, never more. */
export function refundAmount(row: typeof paymentSessions.$inferSelect, input: RefundRequest): number {
  if (row.status !== 'success')
    throw new AppError(
      'payment_not_refundable',
      `Payment session ${row.id} is ${row.status}: only a successful payment can be refunded`,
    );
  if (row.reversal)
    throw new AppError(
      'payment_not_refundable',
      `Payment session ${row.id} was reversed by the provider (${row.reversal.reason}): its money was taken back`,
    );
  // A settlement or reversal holds the session: a refund would race the reversal of its money.
  if (row.operationKey !== null) throw sessionBusy();
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

export const newRefundRow = (
  tenantId: string,
  session: typeof paymentSessions.$inferSelect,
  input: RefundRequest,
  amountCents: number,
  status: RefundStatus,
  now: Date,
  restock: RestockLine[] | null = null,
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
  restock,
  failureMessage: null,
  createdAt: now,
  updatedAt: now,
});

export async function emitCreated(u: UnitOfWork, refund: RefundApi) {
  await u.audit({
    action: 'refund.create',
    resourceType: 'refund',
    resourceId: refund.id,
    details: {
      paymentSessionId: refund.paymentSessionId,
      amountCents: refund.amountCents,
      ...(refund.restock.length > 0 ? { restock: refund.restock } : {}),
    },
  });
  await u.emit('refund.created', refund);
}

/** Writes the pending refund and reserves its amount on the locked session `row`. */
export async function reserve(
  tx: Queryable,
  tenantId: string,
  row: typeof paymentSessions.$inferSelect,
  input: RefundRequest,
  amount: number,
  now: Date,
): Promise<RefundPlan> {
  const restock = await planRefundRestock(tx, tenantId, row, input);
  const refund = newRefundRow(tenantId, row, input, amount, 'pending', now, restock?.lines ?? null);
  await tx.insert(refunds).values(refund);
  await moveRefunded(tx, tenantId, row.id, amount);
  return {
    refundId: refund.id,
    sessionId: row.id,
    invoiceId: row.invoiceId as string,
    amountCents: amount,
    currency: row.currency,
    reason: input.reason,
    ...(restock ? { restock } : {}),
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

/** Nothing was recorded in the billing system: the pending refund and its reservation go. */
export const dropRefund = (tenantId: string, plan: RefundPlan) => async (tx: Tx) => {
  const gone = await tx
    .delete(refunds)
    .where(tenantWhere(refunds, tenantId, eq(refunds.id, plan.refundId), eq(refunds.status, 'pending')))
    .returning({ id: refunds.id });
  if (gone.length > 0) await moveRefunded(tx, tenantId, plan.sessionId, -plan.amountCents);
};

export async function setStatus(
  u: UnitOfWork,
  plan: RefundPlan,
  status: RefundStatus,
  failure: string | null,
) {
  const [row] = await u.tx
    .update(refunds)
    // A failed refund puts nothing back: what it had planned to restock is no longer pending.
    .set({
      status,
      failureMessage: failure,
      updatedAt: u.now,
      ...(status === 'failed' ? { restock: null } : {}),
    })
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
export async function commitRefund(
  lookups: ModuleLookups,
  u: UnitOfWork,
  plan: RefundPlan,
): Promise<RefundApi> {
  const done = await setStatus(u, plan, 'succeeded', null);
  await emitCreated(u, done);
  await u.emit('refund.succeeded', done);
  await refundOnOrder(lookups, u, plan.sessionId, plan.amountCents);
  return done;
}

/** In the refund's unit of work: the order the session paid, if any, has the money back counted. */
async function refundOnOrder(lookups: ModuleLookups, u: UnitOfWork, sessionId: string, amountCents: number) {
  const [row] = await u.tx
    .select({ orderId: paymentSessions.orderId })
    .from(paymentSessions)
    .where(tenantWhere(paymentSessions, u.ctx.tenantId, eq(paymentSessions.id, sessionId)));
  if (row?.orderId) await lookups.moveOrderMoney(u, row.orderId, { refundedCents: amountCents });
}

/**
 * Where to refund `amountCents` from among the successful sessions paying one of `invoiceIds`
 * (a cancellation refunds the subscription's last payments): newest first, each for what it has
 * left, until the amount is covered; null when all of them together have less.
 */
export async function refundableSessions(
  db: Queryable,
  tenantId: string,
  invoiceIds: readonly string[],
  amountCents: number,
): Promise<{ sessionId: string; amountCents: number }[] | null> {
  if (invoiceIds.length === 0) return null;
  const rows = await db
    .select({
      id: paymentSessions.id,
      left: sql<number>`${paymentSessions.amountCents} - ${paymentSessions.refundedCents}`,
    })
    .from(paymentSessions)
    .where(
      tenantWhere(
        paymentSessions,
        tenantId,
        inArray(paymentSessions.invoiceId, [...invoiceIds]),
        eq(paymentSessions.status, 'success'),
        isNull(paymentSessions.reversal),
        sql`${paymentSessions.amountCents} > ${paymentSessions.refundedCents}`,
      ),
    )
    .orderBy(desc(paymentSessions.createdAt), desc(paymentSessions.id));
  const from: { sessionId: string; amountCents: number }[] = [];
  let wanted = amountCents;
  for (const row of rows) {
    if (wanted === 0) break;
    const take = Math.min(wanted, Number(row.left));
    from.push({ sessionId: row.id, amountCents: take });
    wanted -= take;
  }
  return wanted === 0 ? from : null;
}
