import { desc, eq, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import {
  type BillingResult,
  type CreateInvoiceInput,
  fail,
  type Invoice,
  type InvoiceLineInput,
  ok,
  type PaymentReversalInput,
  type SettlementInput,
} from '../adapter.js';
import { accountRow } from './accounts.js';
import { addDays, builtinId, INVOICE_ID, isoDate } from './ids.js';
import { type EngineContext, once } from './records.js';
import { billingInvoiceLines, billingInvoices, billingPayments } from './tables.js';

// Invoices of the built-in engine: issued, settled by payments (a payment row per settlement,
// a negative row per reversal, so the rows of an invoice always sum to what is paid on it),
// voided or written off.

export type InvoiceRow = typeof billingInvoices.$inferSelect;

const DEFAULT_TERMS_DAYS = 30;

export async function invoiceRow(ctx: EngineContext, db: Queryable, invoiceId: string, forUpdate = false) {
  if (!INVOICE_ID.test(invoiceId)) return undefined;
  const query = db
    .select()
    .from(billingInvoices)
    .where(tenantWhere(billingInvoices, ctx.tenantId, eq(billingInvoices.id, invoiceId)));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row;
}

export async function presentInvoices(
  ctx: EngineContext,
  db: Queryable,
  rows: InvoiceRow[],
): Promise<Invoice[]> {
  if (rows.length === 0) return [];
  const lines = await db
    .select()
    .from(billingInvoiceLines)
    .where(
      tenantWhere(
        billingInvoiceLines,
        ctx.tenantId,
        inArray(
          billingInvoiceLines.invoiceId,
          rows.map((r) => r.id),
        ),
      ),
    )
    .orderBy(billingInvoiceLines.position);
  const base = ctx.config.hostedInvoiceBaseUrl?.replace(/\/$/, '');
  return rows.map((r) => ({
    id: r.id,
    accountId: r.accountId,
    invoiceNumber: r.invoiceNumber,
    invoiceDate: r.invoiceDate,
    dueDate: r.dueDate,
    currency: r.currency,
    amountCents: r.amountCents,
    balanceCents: r.balanceCents,
    status: r.status,
    hostedInvoiceUrl: base ? `${base}/${r.id}` : null,
    subscriptionId: r.subscriptionId,
    lines: lines
      .filter((l) => l.invoiceId === r.id)
      .map((l) => ({
        description: l.description,
        quantity: l.quantity,
        unitAmountCents: l.unitAmountCents,
        amountCents: l.amountCents,
      })),
  }));
}

const presentOne = async (ctx: EngineContext, db: Queryable, row: InvoiceRow) =>
  (await presentInvoices(ctx, db, [row]))[0] as Invoice;

export async function listInvoices(ctx: EngineContext, accountId: string): Promise<BillingResult<Invoice[]>> {
  if (!(await accountRow(ctx, ctx.db, accountId)))
    return fail('not_found', `billing account ${accountId} not found`);
  const rows = await ctx.db
    .select()
    .from(billingInvoices)
    .where(tenantWhere(billingInvoices, ctx.tenantId, eq(billingInvoices.accountId, accountId)))
    .orderBy(desc(billingInvoices.createdAt), desc(billingInvoices.invoiceNumber));
  return ok(await presentInvoices(ctx, ctx.db, rows));
}

export async function getInvoice(ctx: EngineContext, invoiceId: string): Promise<BillingResult<Invoice>> {
  const row = await invoiceRow(ctx, ctx.db, invoiceId);
  return row ? ok(await presentOne(ctx, ctx.db, row)) : fail('not_found', `invoice ${invoiceId} not found`);
}

function checkLines(lines: readonly InvoiceLineInput[]): BillingResult<never> | undefined {
  if (lines.length === 0) return fail('invalid', 'an invoice needs at least one line', 'lines');
  for (const [i, l] of lines.entries()) {
    if (!Number.isInteger(l.quantity) || l.quantity < 1)
      return fail('invalid', `lines.${i}.quantity must be a positive integer`, `lines.${i}.quantity`);
    if (!Number.isInteger(l.unitAmountCents))
      return fail('invalid', `lines.${i}.unitAmountCents must be an integer`, `lines.${i}.unitAmountCents`);
  }
  if (lines.reduce((s, l) => s + l.quantity * l.unitAmountCents, 0) < 0)
    return fail('invalid', 'an invoice total cannot be negative', 'lines');
  return undefined;
}

/** Issues an invoice in `tx`; a repeated idempotency key returns the first invoice unchanged. */
export async function issueInvoice(
  ctx: EngineContext,
  tx: Queryable,
  input: CreateInvoiceInput,
): Promise<BillingResult<Invoice>> {
  const [existing] = await tx
    .select()
    .from(billingInvoices)
    .where(
      tenantWhere(billingInvoices, ctx.tenantId, eq(billingInvoices.idempotencyKey, input.idempotencyKey)),
    );
  if (existing) return ok(await presentOne(ctx, tx, existing));
  const account = await accountRow(ctx, tx, input.accountId);
  if (!account) return fail('not_found', `billing account ${input.accountId} not found`);
  if (input.currency !== account.currency)
    return fail(
      'invalid',
      `currency ${input.currency} differs from the account's ${account.currency}`,
      'currency',
    );
  const problem = checkLines(input.lines);
  if (problem) return problem;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`billing-invoices:${ctx.tenantId}`}))`);
  const [{ n } = { n: 0 }] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(billingInvoices)
    .where(tenantWhere(billingInvoices, ctx.tenantId));
  const now = ctx.clock.now();
  const invoiceDate = isoDate(now);
  const amountCents = input.lines.reduce((sum, l) => sum + l.quantity * l.unitAmountCents, 0);
  const row: InvoiceRow = {
    tenantId: ctx.tenantId,
    id: builtinId('in_'),
    accountId: account.id,
    invoiceNumber: `INV-${String(n + 1).padStart(6, '0')}`,
    invoiceDate,
    dueDate: input.dueDate ?? addDays(invoiceDate, ctx.config.paymentTermsDays ?? DEFAULT_TERMS_DAYS),
    currency: input.currency,
    amountCents,
    balanceCents: amountCents,
    // A zero invoice (fully credited) is paid on issue.
    status: amountCents === 0 ? 'paid' : 'open',
    subscriptionId: input.subscriptionId ?? null,
    idempotencyKey: input.idempotencyKey,
    createdAt: now,
    updatedAt: now,
  };
  await tx.insert(billingInvoices).values(row);
  await tx.insert(billingInvoiceLines).values(
    input.lines.map((l, position) => ({
      tenantId: ctx.tenantId,
      invoiceId: row.id,
      position,
      description: l.description,
      quantity: l.quantity,
      unitAmountCents: l.unitAmountCents,
      amountCents: l.quantity * l.unitAmountCents,
    })),
  );
  return ok(await presentOne(ctx, tx, row));
}

export const createInvoice = (ctx: EngineContext, input: CreateInvoiceInput) =>
  once(ctx, input.idempotencyKey, 'invoice', (tx) => issueInvoice(ctx, tx, input));

export async function setBalance(
  ctx: EngineContext,
  tx: Queryable,
  row: InvoiceRow,
  balanceCents: number,
  status: InvoiceRow['status'],
) {
  const now = ctx.clock.now();
  await tx
    .update(billingInvoices)
    .set({ balanceCents, status, updatedAt: now })
    .where(tenantWhere(billingInvoices, ctx.tenantId, eq(billingInvoices.id, row.id)));
  return presentOne(ctx, tx, { ...row, balanceCents, status, updatedAt: now });
}

export function settleInvoice(ctx: EngineContext, invoiceId: string, payment: SettlementInput) {
  return once(ctx, payment.idempotencyKey, 'invoice', async (tx): Promise<BillingResult<Invoice>> => {
    const row = await invoiceRow(ctx, tx, invoiceId, true);
    if (!row) return fail('not_found', `invoice ${invoiceId} not found`);
    if (row.status !== 'open') return fail('conflict', `invoice ${invoiceId} is ${row.status}, not open`);
    if (payment.currency !== row.currency)
      return fail(
        'invalid',
        `currency ${payment.currency} differs from the invoice's ${row.currency}`,
        'currency',
      );
    if (!Number.isInteger(payment.amountCents) || payment.amountCents <= 0)
      return fail('invalid', 'amountCents must be a positive integer', 'amountCents');
    if (payment.amountCents > row.balanceCents)
      return fail(
        'invalid',
        `amountCents ${payment.amountCents} exceeds the invoice balance ${row.balanceCents}`,
        'amountCents',
      );
    await tx.insert(billingPayments).values({
      tenantId: ctx.tenantId,
      id: builtinId('bp_'),
      invoiceId,
      amountCents: payment.amountCents,
      currency: payment.currency,
      paymentReference: payment.paymentReference,
      idempotencyKey: payment.idempotencyKey,
      createdAt: ctx.clock.now(),
    });
    const balanceCents = row.balanceCents - payment.amountCents;
    return ok(await setBalance(ctx, tx, row, balanceCents, balanceCents === 0 ? 'paid' : 'open'));
  });
}

/** Undoes the payment named by `paymentReference`: a negative payment row; the balance grows back. */
export function reversePayment(ctx: EngineContext, invoiceId: string, input: PaymentReversalInput) {
  return once(ctx, input.idempotencyKey, 'invoice', async (tx): Promise<BillingResult<Invoice>> => {
    const row = await invoiceRow(ctx, tx, invoiceId, true);
    if (!row) return fail('not_found', `invoice ${invoiceId} not found`);
    const payments = await tx
      .select({ amountCents: billingPayments.amountCents })
      .from(billingPayments)
      .where(
        tenantWhere(
          billingPayments,
          ctx.tenantId,
          eq(billingPayments.invoiceId, invoiceId),
          eq(billingPayments.paymentReference, input.paymentReference),
        ),
      );
    if (payments.length === 0)
      return fail('not_found', `invoice ${invoiceId} has no payment ${input.paymentReference}`);
    const standing = payments.reduce((s, p) => s + p.amountCents, 0);
    if (standing <= 0) return fail('conflict', `payment ${input.paymentReference} is reversed already`);
    await tx.insert(billingPayments).values({
      tenantId: ctx.tenantId,
      id: builtinId('bp_'),
      invoiceId,
      amountCents: -standing,
      currency: row.currency,
      paymentReference: input.paymentReference,
      idempotencyKey: input.idempotencyKey,
      createdAt: ctx.clock.now(),
    });
    const status = row.status === 'paid' ? 'open' : row.status;
    return ok(await setBalance(ctx, tx, row, row.balanceCents + standing, status));
  });
}

/**
 * The engine's one rule for voiding, on every path (the adapter's `voidInvoice`, the operator's
 * close, and the operator route's check before it records anything): an invoice something was
 * paid on (a payment or credit) is not voided, since what was collected would stay collected on a
 * void invoice. The refusal's message names the amount paid; null: it may be voided.
 */
export function voidRefusal(invoice: {
  id: string;
  amountCents: number;
  balanceCents: number;
  currency: string;
}): string | null {
  const paid = invoice.amountCents - invoice.balanceCents;
  if (paid <= 0) return null;
  return (
    `invoice ${invoice.id} is partly paid (${paid} of ${invoice.amountCents} ${invoice.currency} minor units paid): ` +
    'refund the payments before voiding it, or write it off (uncollectible)'
  );
}

/** Voids an open invoice nothing has been paid on; void already: the same invoice. */
export function voidInvoice(ctx: EngineContext, invoiceId: string, idempotencyKey: string) {
  return closeInvoice(ctx, invoiceId, 'void', idempotencyKey);
}

/**
 * Voids or writes off an open invoice (closing it the same way again: no change); a void follows
 * `voidRefusal`. Once per key when given one.
 */
export function closeInvoice(
  ctx: EngineContext,
  invoiceId: string,
  status: 'void' | 'uncollectible',
  idempotencyKey?: string,
): Promise<BillingResult<Invoice>> {
  const close = async (tx: Queryable): Promise<BillingResult<Invoice>> => {
    const row = await invoiceRow(ctx, tx, invoiceId, true);
    if (!row) return fail('not_found', `invoice ${invoiceId} not found`);
    // Closing it the same way again changes nothing (a retried request gets the same answer).
    if (row.status === status) return ok(await presentOne(ctx, tx, row));
    if (row.status !== 'open') return fail('conflict', `invoice ${invoiceId} is ${row.status}, not open`);
    const refused = status === 'void' ? voidRefusal(row) : null;
    if (refused) return fail('conflict', refused);
    return ok(await setBalance(ctx, tx, row, row.balanceCents, status));
  };
  return idempotencyKey ? once(ctx, idempotencyKey, 'invoice', close) : ctx.db.transaction(close);
}
