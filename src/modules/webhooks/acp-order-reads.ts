import { sql } from 'drizzle-orm';
import { type Queryable, rowsOf } from '../../db/client.js';
import { readTogether } from '../../db/read-together.js';
import type { ModuleLookups, OrderPaymentView } from '../../unit-of-work/index.js';
import { getOrder, type OrderRow } from '../orders/index.js';
import { getSellerProfile, orderPermalinkUrl } from '../seller/index.js';
import type { AcpAdjustment, AcpOrderFacts } from './acp-events.js';

/** What building an ACP order at send time reads from. */
export interface AcpOrderReads {
  db: Queryable;
  /** The order's payment sessions (payments). */
  lookups: Pick<ModuleLookups, 'orderPayments'>;
  /** For the order's `permalink_url`. */
  publicBaseUrl: string;
}

/** Most adjustments an order shows (refunds, reversals and credit applications in all). */
const ADJUSTMENTS_MAX = 500;

interface AdjustmentEvent {
  id: string;
  type: 'refund.succeeded' | 'payment.reversed' | 'credit.applied';
  occurred_at: Date | string;
  payload: Record<string, unknown>;
}

const asIso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

function adjustmentOf(e: AdjustmentEvent, currency: string): AcpAdjustment {
  const p = e.payload;
  const base = {
    occurred_at: asIso(e.occurred_at),
    status: 'completed' as const,
    amount: Math.abs(Number(p.amountCents ?? 0)),
    currency: (text(p.currency) ?? currency).toLowerCase(),
  };
  if (e.type === 'refund.succeeded') {
    const note = text(p.note);
    const reason = text(p.reason);
    return {
      id: `adj_${String(p.id)}`,
      type: 'refund',
      ...base,
      ...(note ? { description: note } : {}),
      ...(reason ? { reason } : {}),
    };
  }
  if (e.type === 'payment.reversed') {
    return {
      id: `adj_${String(p.id)}`,
      type: 'dispute',
      ...base,
      description: 'The payment was reversed by the payment provider after it succeeded.',
    };
  }
  return { id: `adj_${String(p.id)}`, type: 'credit', ...base, description: 'Account credit applied.' };
}

/**
 * The order's adjustments, oldest first: its refunds that succeeded, its payments reversed after
 * success (as disputes) and account credit applied to its invoice. Read from the tenant's events
 * since the order was created, and only when the order has any (money refunded, a payment
 * reversed, an invoice to apply credit to): an order made by a checkout without refunds reads
 * nothing here.
 */
async function adjustmentsOf(
  db: Queryable,
  row: OrderRow,
  payments: readonly OrderPaymentView[],
): Promise<AcpAdjustment[]> {
  const sessionIds = payments.map((p) => p.id);
  const reversed = payments.some((p) => p.reversed);
  if (row.refundedCents === 0 && !reversed && row.invoiceId === null) return [];
  const sessions = sessionIds.length > 0 ? sessionIds : ['-'];
  const result = await db.execute(sql`
    select id, type, occurred_at, payload from events
    where tenant_id = ${row.tenantId}::uuid and occurred_at >= ${row.createdAt}
      and type in ('refund.succeeded', 'payment.reversed', 'credit.applied')
      and ((type = 'refund.succeeded' and payload ->> 'paymentSessionId' in (${sql.join(
        sessions.map((id) => sql`${id}`),
        sql`, `,
      )}))
        or (type = 'payment.reversed' and payload ->> 'orderId' = ${row.id})
        or (type = 'credit.applied' and payload -> 'invoice' ->> 'id' = ${row.invoiceId ?? '-'}))
    order by occurred_at, id
    limit ${ADJUSTMENTS_MAX}`);
  return rowsOf<AdjustmentEvent>(result).map((e) => adjustmentOf(e, row.currency));
}

/** An order event's payload: the order as presented when the event was emitted. */
const orderIdOf = (payload: unknown): string | undefined =>
  payload && typeof payload === 'object' ? text((payload as { id?: unknown }).id) : undefined;

/**
 * What the ACP Order of an order event is built from, read now (a retry sends the order as it is
 * then, so a late delivery never shows an older state than an earlier one): the order, its
 * payments' adjustments, the seller's support contact. Throws when the order is gone or was not
 * made by a checkout session (the attempt then fails and is recorded).
 */
export async function readAcpOrderFacts(
  reads: AcpOrderReads,
  tenantId: string,
  payload: unknown,
): Promise<AcpOrderFacts> {
  const orderId = orderIdOf(payload);
  if (!orderId) throw new Error('the event carries no order id');
  const row = await getOrder(reads.db, tenantId, orderId);
  if (!row) throw new Error(`order ${orderId} no longer exists`);
  if (!row.checkoutSessionId) throw new Error(`order ${orderId} was not made by a checkout session`);
  const [[payments], seller] = await Promise.all([
    readTogether(reads.db, [reads.lookups.orderPayments(tenantId, orderId)]),
    getSellerProfile(reads.db, tenantId),
  ]);
  return {
    order: {
      id: row.id,
      orderNumber: `ORD-${row.sequence}`,
      checkoutSessionId: row.checkoutSessionId,
      status: row.status,
      currency: row.currency,
      items: row.items,
      totalCents: row.totalCents,
      discountCents: row.discountCents,
      refundedCents: row.refundedCents,
      shipping: row.shipping ?? null,
    },
    adjustments: await adjustmentsOf(reads.db, row, payments),
    permalinkUrl: orderPermalinkUrl(reads.publicBaseUrl, row.id),
    support: { email: seller.supportEmail, helpCenterUrl: seller.supportUrl },
  };
}
