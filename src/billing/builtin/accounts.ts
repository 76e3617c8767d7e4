import { desc, eq, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import {
  type BillingAccount,
  type BillingContact,
  type BillingPaymentMethod,
  type BillingResult,
  fail,
  ok,
} from '../adapter.js';
import { ACCOUNT_ID, builtinId } from './ids.js';
import { type EngineContext, once } from './records.js';
import { billingAccounts, billingInvoices, billingPaymentMethods } from './tables.js';

// Accounts and payment methods of the built-in engine.

type AccountRow = typeof billingAccounts.$inferSelect;

export async function accountRow(ctx: EngineContext, db: Queryable, accountId: string) {
  if (!ACCOUNT_ID.test(accountId)) return undefined;
  const [row] = await db
    .select()
    .from(billingAccounts)
    .where(tenantWhere(billingAccounts, ctx.tenantId, eq(billingAccounts.id, accountId)));
  return row;
}

/** Sum of the open invoices' balances, per account. */
async function openBalances(ctx: EngineContext, accountIds: string[]): Promise<Map<string, number>> {
  if (accountIds.length === 0) return new Map();
  const rows = await ctx.db
    .select({
      accountId: billingInvoices.accountId,
      balance: sql<string>`sum(${billingInvoices.balanceCents})`,
    })
    .from(billingInvoices)
    .where(
      tenantWhere(
        billingInvoices,
        ctx.tenantId,
        inArray(billingInvoices.accountId, accountIds),
        eq(billingInvoices.status, 'open'),
      ),
    )
    .groupBy(billingInvoices.accountId);
  return new Map(rows.map((r) => [r.accountId, Number(r.balance)]));
}

const presentAccount = (row: AccountRow, balanceCents: number): BillingAccount => ({
  id: row.id,
  accountNumber: row.accountNumber,
  name: row.name,
  currency: row.currency,
  balanceCents,
  contacts: row.contacts,
});

/** Operator: opens a billing account (`ba_...`, number `A-000001`...); once per idempotency key. */
export async function createAccount(
  ctx: EngineContext,
  input: { name: string; currency: string; contacts?: BillingContact[] },
  idempotencyKey: string,
): Promise<BillingAccount> {
  const result = await once(ctx, idempotencyKey, 'account', async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`billing-accounts:${ctx.tenantId}`}))`);
    const [{ n } = { n: 0 }] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(billingAccounts)
      .where(tenantWhere(billingAccounts, ctx.tenantId));
    const row: AccountRow = {
      tenantId: ctx.tenantId,
      id: builtinId('ba_'),
      accountNumber: `A-${String(n + 1).padStart(6, '0')}`,
      name: input.name,
      currency: input.currency,
      contacts: input.contacts ?? [],
      createdAt: ctx.clock.now(),
    };
    await tx.insert(billingAccounts).values(row);
    return ok(presentAccount(row, 0));
  });
  return (result as { ok: true; value: BillingAccount }).value;
}

export async function listAccounts(ctx: EngineContext): Promise<BillingAccount[]> {
  const rows = await ctx.db
    .select()
    .from(billingAccounts)
    .where(tenantWhere(billingAccounts, ctx.tenantId))
    .orderBy(desc(billingAccounts.createdAt), desc(billingAccounts.id));
  const balances = await openBalances(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((r) => presentAccount(r, balances.get(r.id) ?? 0));
}

export async function getAccount(
  ctx: EngineContext,
  accountId: string,
): Promise<BillingResult<BillingAccount>> {
  const row = await accountRow(ctx, ctx.db, accountId);
  if (!row) return fail('not_found', `billing account ${accountId} not found`);
  const balances = await openBalances(ctx, [row.id]);
  return ok(presentAccount(row, balances.get(row.id) ?? 0));
}

export async function listPaymentMethods(
  ctx: EngineContext,
  accountId: string,
): Promise<BillingResult<BillingPaymentMethod[]>> {
  if (!(await accountRow(ctx, ctx.db, accountId)))
    return fail('not_found', `billing account ${accountId} not found`);
  const rows = await ctx.db
    .select()
    .from(billingPaymentMethods)
    .where(tenantWhere(billingPaymentMethods, ctx.tenantId, eq(billingPaymentMethods.accountId, accountId)))
    .orderBy(desc(billingPaymentMethods.createdAt), desc(billingPaymentMethods.id));
  return ok(
    rows.map((r) => ({
      id: r.id,
      type: r.type,
      cardType: r.cardType,
      lastFour: r.lastFour,
      expirationMonth: r.expirationMonth,
      expirationYear: r.expirationYear,
      isDefault: r.isDefault,
    })),
  );
}

/** Operator: stores a payment method on a billing account (the first becomes default); once per key. */
export function addPaymentMethod(
  ctx: EngineContext,
  accountId: string,
  input: Omit<BillingPaymentMethod, 'id' | 'isDefault'>,
  idempotencyKey: string,
): Promise<BillingResult<BillingPaymentMethod>> {
  return once(ctx, idempotencyKey, 'payment_method', async (tx) => {
    if (!(await accountRow(ctx, tx, accountId)))
      return fail('not_found', `billing account ${accountId} not found`);
    const existing = await tx
      .select({ id: billingPaymentMethods.id })
      .from(billingPaymentMethods)
      .where(
        tenantWhere(billingPaymentMethods, ctx.tenantId, eq(billingPaymentMethods.accountId, accountId)),
      );
    const method = { id: builtinId('pm_'), ...input, isDefault: existing.length === 0 };
    await tx
      .insert(billingPaymentMethods)
      .values({ tenantId: ctx.tenantId, accountId, ...method, createdAt: ctx.clock.now() });
    return ok(method);
  });
}
