import { and, eq, sql } from 'drizzle-orm';
import { tenantWhere } from '../../db/tenant-scope.js';
import {
  type BillingResult,
  type CreditApplicationInput,
  fail,
  type Invoice,
  ok,
  type RefundInput,
} from '../adapter.js';
import { builtinId } from './ids.js';
import { invoiceRow, presentInvoices, setBalance } from './invoices.js';
import { type EngineContext, once } from './records.js';
import { billingPayments, billingRefunds } from './tables.js';

// Money given back on an invoice's payments (refunds) and account credit applied to an invoice.
// A refund is a credit note against the payment: the invoice stays as it is (a paid invoice owes
// nothing again), and a payment's refunds never exceed what stands of it. A credit application is
// a payment row of method `credit`: it lowers the balance like a settlement.

const positive = (amountCents: number) =>
  Number.isInteger(amountCents) && amountCents > 0
    ? undefined
    : fail<never>('invalid', 'amountCents must be a positive integer', 'amountCents');

export function refundPayment(ctx: EngineContext, invoiceId: string, input: RefundInput) {
  return once(ctx, input.idempotencyKey, 'invoice', async (tx): Promise<BillingResult<Invoice>> => {
    const row = await invoiceRow(ctx, tx, invoiceId, true);
    if (!row) return fail('not_found', `invoice ${invoiceId} not found`);
    const bad = positive(input.amountCents);
    if (bad) return bad;
    if (input.currency !== row.currency)
      return fail(
        'invalid',
        `currency ${input.currency} differs from the invoice's ${row.currency}`,
        'currency',
      );
    const [paid] = await tx
      .select({ cents: sql<string | null>`sum(${billingPayments.amountCents})` })
      .from(billingPayments)
      .where(
        tenantWhere(
          billingPayments,
          ctx.tenantId,
          and(
            eq(billingPayments.invoiceId, invoiceId),
            eq(billingPayments.paymentReference, input.paymentReference),
            eq(billingPayments.method, 'payment'),
          ),
        ),
      );
    const standing = Number(paid?.cents ?? 0);
    if (standing <= 0)
      return fail('not_found', `invoice ${invoiceId} has no payment ${input.paymentReference}`);
    const [refunded] = await tx
      .select({ cents: sql<string | null>`sum(${billingRefunds.amountCents})` })
      .from(billingRefunds)
      .where(
        tenantWhere(
          billingRefunds,
          ctx.tenantId,
          eq(billingRefunds.invoiceId, invoiceId),
          eq(billingRefunds.paymentReference, input.paymentReference),
        ),
      );
    const refundable = standing - Number(refunded?.cents ?? 0);
    if (input.amountCents > refundable)
      return fail(
        'invalid',
        `amountCents ${input.amountCents} exceeds what is left to refund of payment ${input.paymentReference} (${refundable})`,
        'amountCents',
      );
    await tx.insert(billingRefunds).values({
      tenantId: ctx.tenantId,
      id: builtinId('re_'),
      invoiceId,
      paymentReference: input.paymentReference,
      amountCents: input.amountCents,
      currency: input.currency,
      reason: input.reason,
      idempotencyKey: input.idempotencyKey,
      createdAt: ctx.clock.now(),
    });
    return ok((await presentInvoices(ctx, tx, [row]))[0] as Invoice);
  });
}

export function applyCredit(ctx: EngineContext, invoiceId: string, input: CreditApplicationInput) {
  return once(ctx, input.idempotencyKey, 'invoice', async (tx): Promise<BillingResult<Invoice>> => {
    const row = await invoiceRow(ctx, tx, invoiceId, true);
    if (!row) return fail('not_found', `invoice ${invoiceId} not found`);
    if (row.status !== 'open') return fail('conflict', `invoice ${invoiceId} is ${row.status}, not open`);
    const bad = positive(input.amountCents);
    if (bad) return bad;
    if (input.currency !== row.currency)
      return fail(
        'invalid',
        `currency ${input.currency} differs from the invoice's ${row.currency}`,
        'currency',
      );
    if (input.amountCents > row.balanceCents)
      return fail(
        'invalid',
        `amountCents ${input.amountCents} exceeds the invoice balance ${row.balanceCents}`,
        'amountCents',
      );
    await tx.insert(billingPayments).values({
      tenantId: ctx.tenantId,
      id: builtinId('bp_'),
      invoiceId,
      amountCents: input.amountCents,
      currency: input.currency,
      paymentReference: input.creditReference,
      method: 'credit',
      idempotencyKey: input.idempotencyKey,
      createdAt: ctx.clock.now(),
    });
    const balanceCents = row.balanceCents - input.amountCents;
    return ok(await setBalance(ctx, tx, row, balanceCents, balanceCents === 0 ? 'paid' : 'open'));
  });
}
