import { desc, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import {
  type BillingResult,
  type BillingSubscription,
  type CancelSubscriptionInput,
  type ChangeSubscriptionInput,
  fail,
  type Invoice,
  type InvoiceLineInput,
  ok,
  type ProvisionSubscriptionInput,
  type RenewSubscriptionInput,
  type SubscriptionChange,
} from '../adapter.js';
import { accountRow } from './accounts.js';
import { builtinId, isoDate } from './ids.js';
import { issueInvoice } from './invoices.js';
import { type EngineContext, once } from './records.js';
import { billingSubscriptions } from './tables.js';

// Subscriptions of the built-in engine: provisioned, changed, cancelled and renewed, each once
// per idempotency key; the invoices they issue name them (`subscriptionId`).

type SubscriptionRow = typeof billingSubscriptions.$inferSelect;

function presentSubscription(row: SubscriptionRow): BillingSubscription {
  return {
    id: row.id,
    accountId: row.accountId,
    productId: row.productId,
    productName: row.productName,
    quantity: row.quantity,
    priceCents: row.priceCents,
    currency: row.currency,
    billingInterval: row.billingInterval,
    status: row.status,
    currentPeriodStart: row.currentPeriodStart.toISOString(),
    currentPeriodEnd: row.currentPeriodEnd.toISOString(),
  };
}

async function subscriptionRow(ctx: EngineContext, tx: Queryable, id: string) {
  const [row] = await tx
    .select()
    .from(billingSubscriptions)
    .where(tenantWhere(billingSubscriptions, ctx.tenantId, eq(billingSubscriptions.id, id)))
    .for('update');
  return row;
}

async function saveSubscription(ctx: EngineContext, tx: Queryable, row: SubscriptionRow) {
  const { tenantId: _t, id, ...fields } = row;
  await tx
    .update(billingSubscriptions)
    .set(fields)
    .where(tenantWhere(billingSubscriptions, ctx.tenantId, eq(billingSubscriptions.id, id)));
}

/** The invoice for one period: the price, less any credit carried from downgrades. */
function periodInvoice(ctx: EngineContext, tx: Queryable, row: SubscriptionRow, idempotencyKey: string) {
  const credit = Math.min(row.creditCents, row.priceCents);
  const lines: InvoiceLineInput[] = [
    {
      description: `${row.productName} x ${row.quantity}, ${isoDate(row.currentPeriodStart)} to ${isoDate(row.currentPeriodEnd)}`,
      quantity: 1,
      unitAmountCents: row.priceCents,
    },
    ...(credit > 0
      ? [{ description: 'Credit from a plan change', quantity: 1, unitAmountCents: -credit }]
      : []),
  ];
  return issueInvoice(ctx, tx, {
    accountId: row.accountId,
    currency: row.currency,
    lines,
    subscriptionId: row.id,
    idempotencyKey,
  });
}

export async function listSubscriptions(
  ctx: EngineContext,
  accountId: string,
): Promise<BillingResult<BillingSubscription[]>> {
  if (!(await accountRow(ctx, ctx.db, accountId)))
    return fail('not_found', `billing account ${accountId} not found`);
  const rows = await ctx.db
    .select()
    .from(billingSubscriptions)
    .where(tenantWhere(billingSubscriptions, ctx.tenantId, eq(billingSubscriptions.accountId, accountId)))
    .orderBy(desc(billingSubscriptions.createdAt), desc(billingSubscriptions.id));
  return ok(rows.map(presentSubscription));
}

export function provisionSubscription(ctx: EngineContext, input: ProvisionSubscriptionInput) {
  return once(
    ctx,
    input.idempotencyKey,
    'subscription',
    async (tx): Promise<BillingResult<SubscriptionChange>> => {
      const account = await accountRow(ctx, tx, input.accountId);
      if (!account) return fail('not_found', `billing account ${input.accountId} not found`);
      if (input.currency !== account.currency)
        return fail(
          'invalid',
          `currency ${input.currency} differs from the account's ${account.currency}`,
          'currency',
        );
      const now = ctx.clock.now();
      const row: SubscriptionRow = {
        tenantId: ctx.tenantId,
        id: builtinId('bs_'),
        accountId: account.id,
        productId: input.productId,
        productName: input.productName,
        quantity: input.quantity,
        priceCents: input.priceCents,
        currency: input.currency,
        billingInterval: input.billingInterval,
        status: 'active',
        currentPeriodStart: new Date(input.currentPeriodStart),
        currentPeriodEnd: new Date(input.currentPeriodEnd),
        creditCents: 0,
        idempotencyKey: input.idempotencyKey,
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(billingSubscriptions).values(row);
      const invoice = input.invoiceFirstPeriod
        ? await periodInvoice(ctx, tx, row, `${input.idempotencyKey}:invoice`)
        : null;
      if (invoice && !invoice.ok) return invoice;
      return ok({ subscription: presentSubscription(row), invoice: invoice?.value ?? null });
    },
  );
}

export function changeSubscription(ctx: EngineContext, input: ChangeSubscriptionInput) {
  return once(
    ctx,
    input.idempotencyKey,
    'subscription',
    async (tx): Promise<BillingResult<SubscriptionChange>> => {
      const row = await subscriptionRow(ctx, tx, input.subscriptionId);
      if (!row) return fail('not_found', `subscription ${input.subscriptionId} not found`);
      if (row.status === 'cancelled') return fail('conflict', `subscription ${row.id} is cancelled`);
      const next: SubscriptionRow = {
        ...row,
        productId: input.productId ?? row.productId,
        productName: input.productName ?? row.productName,
        quantity: input.quantity ?? row.quantity,
        priceCents: input.priceCents ?? row.priceCents,
        creditCents: row.creditCents + (input.creditCents ?? 0),
        updatedAt: ctx.clock.now(),
      };
      await saveSubscription(ctx, tx, next);
      let invoice: Invoice | null = null;
      if ((input.chargeCents ?? 0) > 0) {
        const issued = await issueInvoice(ctx, tx, {
          accountId: row.accountId,
          currency: row.currency,
          lines: [
            {
              description: `Plan change: ${next.productName} (prorated)`,
              quantity: 1,
              unitAmountCents: input.chargeCents ?? 0,
            },
          ],
          subscriptionId: row.id,
          idempotencyKey: `${input.idempotencyKey}:invoice`,
        });
        if (!issued.ok) return issued;
        invoice = issued.value;
      }
      return ok({ subscription: presentSubscription(next), invoice });
    },
  );
}

export function cancelSubscription(ctx: EngineContext, input: CancelSubscriptionInput) {
  return once(
    ctx,
    input.idempotencyKey,
    'subscription',
    async (tx): Promise<BillingResult<SubscriptionChange>> => {
      const row = await subscriptionRow(ctx, tx, input.subscriptionId);
      if (!row) return fail('not_found', `subscription ${input.subscriptionId} not found`);
      if (row.status === 'cancelled') return fail('conflict', `subscription ${row.id} is already cancelled`);
      const next: SubscriptionRow = {
        ...row,
        status: input.timing === 'immediate' ? 'cancelled' : 'pending_cancellation',
        updatedAt: ctx.clock.now(),
      };
      await saveSubscription(ctx, tx, next);
      return ok({ subscription: presentSubscription(next), invoice: null });
    },
  );
}

export function renewSubscription(ctx: EngineContext, input: RenewSubscriptionInput) {
  return once(
    ctx,
    input.idempotencyKey,
    'subscription',
    async (tx): Promise<BillingResult<SubscriptionChange>> => {
      const row = await subscriptionRow(ctx, tx, input.subscriptionId);
      if (!row) return fail('not_found', `subscription ${input.subscriptionId} not found`);
      if (row.status !== 'active')
        return fail('conflict', `subscription ${row.id} is ${row.status}, not active`);
      const moved: SubscriptionRow = {
        ...row,
        currentPeriodStart: new Date(input.currentPeriodStart),
        currentPeriodEnd: new Date(input.currentPeriodEnd),
        updatedAt: ctx.clock.now(),
      };
      // A period billed in advance only moves: the credit carried waits for the next invoice.
      if (input.invoice === false) {
        await saveSubscription(ctx, tx, moved);
        return ok({ subscription: presentSubscription(moved), invoice: null });
      }
      const next: SubscriptionRow = { ...moved, creditCents: 0 };
      await saveSubscription(ctx, tx, next);
      const invoice = await periodInvoice(
        ctx,
        tx,
        { ...next, creditCents: row.creditCents },
        `${input.idempotencyKey}:invoice`,
      );
      if (!invoice.ok) return invoice;
      return ok({ subscription: presentSubscription(next), invoice: invoice.value });
    },
  );
}
