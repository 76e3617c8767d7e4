import { and, eq, sql } from 'drizzle-orm';
import {
  type BillingAdapter,
  type Invoice,
  presentInvoice,
  requireCapability,
  unwrapBilling,
} from '../../billing/index.js';
import { type OperationContext, systemContext } from '../../core/context.js';
import { AppError, validationFailed } from '../../core/errors.js';
import type { Tx } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import {
  declareOperation,
  derivedKey,
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { accountLinkedTo } from '../accounts/index.js';
import { creditHolder } from './holder.js';
import {
  adjustRemaining,
  balanceIn,
  type CreditEntryApi,
  grant,
  insertEntry,
  lockLedger,
  presentEntry,
  type Spent,
  spendGrants,
} from './service.js';
import { creditEntries } from './tables.js';

export interface GrantInput {
  accountId: string;
  amountCents: number;
  currency: string;
  reason: string;
  expiresAt?: string;
}

/**
 * Grants credit to an account (admin): a posted `grant` entry, `credit.granted`. Only an account
 * linked to a billing account can spend credit, so another is 409 (no credit is stranded).
 */
export async function grantCredit(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: GrantInput,
  key: OperationKey<CreditEntryApi>,
): Promise<CreditEntryApi> {
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  if (expiresAt && expiresAt <= deps.clock.now())
    throw validationFailed('expiresAt', 'future', 'expiresAt must be in the future');
  if (!(await creditHolder(deps, ctx.tenantId, { billingAccountId: null, organizationId: input.accountId })))
    throw new AppError(
      'conflict',
      `Account ${input.accountId} is not linked to a billing account (its externalId is not a billing account id): ` +
        'no invoice could take its credit',
    );
  return runUnitOfWork(deps, ctx, key, (u) =>
    grant(u, {
      accountId: input.accountId,
      amountCents: input.amountCents,
      currency: input.currency,
      reason: input.reason,
      expiresAt,
      sourceType: 'admin',
    }),
  );
}

export interface CreditApplication {
  application: CreditEntryApi;
  /** The invoice after the application. */
  invoice: Invoice;
}

/** An application as decided and reserved; JSON, kept in its intent. */
export interface ApplyPlan {
  entryId: string;
  accountId: string;
  invoiceId: string;
  amountCents: number;
  currency: string;
  spent: Spent;
  /**
   * Reserved in the unit of work that issued the invoice (credit on issue): the reconciler makes
   * the call even when the process stopped before it, rather than dropping the reservation.
   */
  onIssue?: true;
}

const noCredit = (message: string) => new AppError('no_credit_available', message);

const noIntegration = () =>
  new AppError('not_found', 'Not found: this tenant has no active billing integration');

/** The open invoice credit is applied to, and the account whose credit pays it. */
async function target(deps: ServiceDeps, ctx: OperationContext, adapter: BillingAdapter, invoiceId: string) {
  // Read before the invoice: every application posted by now is in the balance read next.
  const reflected = await applicationsTo(deps.db, ctx.tenantId, invoiceId, 'posted');
  const invoice = unwrapBilling(await adapter.getInvoice(invoiceId), 'Invoice');
  if (invoice.status !== 'open')
    throw new AppError(
      'invoice_not_open',
      `Invoice ${invoiceId} is ${invoice.status}, not open: it takes no credit`,
    );
  const accountId = await accountLinkedTo(deps.db, ctx.tenantId, invoice.accountId);
  if (!accountId)
    throw noCredit(
      `No account of this tenant is linked to billing account ${invoice.accountId}: it has no credit`,
    );
  return { invoice, accountId, reflected: reflected.map((e) => e.id) };
}

/** The applications of our ledger to `invoiceId` (all, or in one status) with their amounts. */
function applicationsTo(db: Tx | ServiceDeps['db'], tenantId: string, invoiceId: string, status?: 'posted') {
  return db
    .select({ id: creditEntries.id, amountCents: creditEntries.amountCents })
    .from(creditEntries)
    .where(
      tenantWhere(
        creditEntries,
        tenantId,
        eq(creditEntries.invoiceId, invoiceId),
        eq(creditEntries.kind, 'application'),
        status ? eq(creditEntries.status, status) : undefined,
      ),
    );
}

/**
 * Under the ledger lock: what the invoice can still take. Its balance as read, less every
 * application that read may not include (pending, or posted since): two applications to one
 * invoice at once never ask the billing system for more than it owes.
 */
async function invoiceRoom(tx: Tx, tenantId: string, request: ApplyRequest): Promise<number> {
  const reflected = new Set(request.reflected ?? []);
  const since = (await applicationsTo(tx, tenantId, request.invoice.id)).filter((e) => !reflected.has(e.id));
  return request.invoice.balanceCents + since.reduce((sum, e) => sum + e.amountCents, 0);
}

/** An application as asked: the invoice, the account whose credit pays it, how much (default: all it can). */
export interface ApplyRequest {
  invoice: Invoice;
  accountId: string;
  requested?: number | undefined;
  /** The applications posted before the invoice was read (in its balance); none for a new invoice. */
  reflected?: string[];
  /** Credit on issue (on-issue.ts): promised with the invoice. */
  onIssue?: boolean;
}

/** Under the ledger lock: the amount taken from the grants with a pending entry. */
async function reserveApplication(tx: Tx, deps: ServiceDeps, ctx: OperationContext, request: ApplyRequest) {
  const { invoice, accountId, requested } = request;
  await lockLedger(tx, ctx.tenantId, accountId, invoice.currency);
  const now = deps.clock.now();
  const balance = await balanceIn(tx, ctx.tenantId, accountId, invoice.currency, now);
  if (balance <= 0 || (requested !== undefined && requested > balance))
    throw noCredit(
      `Account ${accountId} has ${Math.max(balance, 0)} ${invoice.currency} of credit available`,
    );
  if (requested !== undefined && requested > invoice.balanceCents)
    throw validationFailed(
      'amountCents',
      'maximum',
      `amountCents is above the invoice's balance (${invoice.balanceCents})`,
    );
  const room = await invoiceRoom(tx, ctx.tenantId, request);
  if (room <= 0 || (requested !== undefined && requested > room))
    throw new AppError(
      'conflict',
      `Invoice ${invoice.id} has another credit application in flight; it can take ${Math.max(room, 0)} more now. Read the invoice and retry`,
    );
  const amount = requested ?? Math.min(balance, room);
  const entry = await insertEntry(
    tx,
    ctx.tenantId,
    {
      accountId,
      currency: invoice.currency,
      amountCents: -amount,
      kind: 'application',
      status: 'pending',
      reason: `applied to invoice ${invoice.invoiceNumber}`,
      invoiceId: invoice.id,
    },
    now,
  );
  const spent = await spendGrants(tx, ctx.tenantId, accountId, invoice.currency, amount, now);
  const plan: ApplyPlan = {
    entryId: entry.id,
    accountId,
    invoiceId: invoice.id,
    amountCents: amount,
    currency: invoice.currency,
    spent,
    ...(request.onIssue ? { onIssue: true as const } : {}),
  };
  return plan;
}

/** The billing system never took the application: its pending entry goes and the grants get theirs back. */
async function dropApplication(tx: Tx, tenantId: string, plan: ApplyPlan) {
  await lockLedger(tx, tenantId, plan.accountId, plan.currency);
  const gone = await tx
    .delete(creditEntries)
    .where(
      tenantWhere(
        creditEntries,
        tenantId,
        eq(creditEntries.id, plan.entryId),
        eq(creditEntries.status, 'pending'),
      ),
    )
    .returning({ id: creditEntries.id });
  if (gone.length > 0) await adjustRemaining(tx, tenantId, plan.spent, 1);
}

/** In the unit of work: the entry posted, its audit entry and events; the invoice's order follows. */
async function commitApplication(
  u: UnitOfWork,
  deps: ServiceDeps,
  plan: ApplyPlan,
  applied: Invoice,
): Promise<CreditApplication> {
  const invoice = presentInvoice(applied);
  const [row] = await u.tx
    .update(creditEntries)
    .set({ status: 'posted' })
    .where(tenantWhere(creditEntries, u.ctx.tenantId, eq(creditEntries.id, plan.entryId)))
    .returning();
  const application = presentEntry(row as NonNullable<typeof row>);
  await u.audit({
    action: 'credit.apply',
    resourceType: 'credit_entry',
    resourceId: application.id,
    details: { invoiceId: plan.invoiceId, amountCents: plan.amountCents, currency: plan.currency },
  });
  await u.emit('credit.applied', { ...application, invoice });
  if (applied.status === 'paid')
    await u.emit('invoice.paid', { resourceType: 'invoice', resourceId: invoice.id, invoice });
  // The invoice's order (if any) follows in this unit: paid by credit is paid.
  await deps.invoiceMoneyMoved(u, applied);
  return { application, invoice: applied };
}

/**
 * Applies the account's credit to an open invoice: `amountCents`, or as much as both the balance
 * and the invoice's balance allow. No credit: 409 no_credit_available; a billing system without
 * credits: 501 capability_unavailable.
 */
export const applyOperation = declareOperation<{
  input: { invoiceId: string; amountCents?: number };
  decided: ApplyRequest;
  plan: ApplyPlan;
  called: Invoice;
  result: CreditApplication;
}>({
  name: 'credits.apply',
  recovery: 'roll_forward',
  async plan({ deps, ctx }, input) {
    const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
    if (!adapter) throw noIntegration();
    requireCapability(adapter, 'credits');
    const found = await target(deps, ctx, adapter, input.invoiceId);
    return { ...found, requested: input.amountCents };
  },
  reserve: (tx, { deps, ctx }, request) => reserveApplication(tx, deps, ctx, request),
  subject: (plan) => ({ type: 'credit_entry', id: plan.entryId }),
  steps: () => [{ step: 'apply', kind: 'apply_credit' }],
  adapter: (deps, tenantId) => deps.billing.forTenant(deps.db, tenantId),
  noAdapter: noIntegration,
  async call(_run, intent, adapter) {
    const plan = intent.plan;
    const apply = requireCapability(adapter, 'credits');
    const applied = await intent.call(
      'apply',
      (idempotencyKey) =>
        apply(plan.invoiceId, {
          amountCents: plan.amountCents,
          currency: plan.currency,
          creditReference: plan.entryId,
          idempotencyKey,
        }),
      (invoice: Invoice) => ({ invoiceId: invoice.id }),
    );
    if (!applied.ok)
      throw new AppError('conflict', `The billing system refused the credit: ${applied.failure.message}`);
    return applied.value;
  },
  commit: (u, run, plan, applied) => commitApplication(u, run.deps, plan, applied),
  release: dropApplication,
  // Credit on issue was promised with the invoice: its call is made (again, under its key) even
  // if it never went out. Otherwise a call that never took effect leaves nothing to finish.
  resumeAlways: (plan) => plan.onIssue === true,
});

export function applyCredit(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { invoiceId: string; amountCents?: number },
  key: OperationKey<CreditApplication>,
): Promise<CreditApplication> {
  return applyOperation.run(deps, ctx, input, key);
}

/**
 * Ends what remains of every grant whose expiry has passed (at most `limit` per run): an `expiry`
 * entry takes it away, `credit.expired`. Each grant is its own unit of work under the ledger lock.
 */
export async function expireCredits(
  deps: ServiceDeps,
  options: { tenantId?: string; limit?: number } = {},
): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.db
    .select({ tenantId: creditEntries.tenantId, id: creditEntries.id })
    .from(creditEntries)
    .where(
      and(
        sql`${creditEntries.remainingCents} > 0 and ${creditEntries.expiresAt} is not null`,
        sql`${creditEntries.expiresAt} <= ${now.toISOString()}::timestamptz`,
        options.tenantId ? eq(creditEntries.tenantId, options.tenantId) : undefined,
      ),
    )
    .orderBy(creditEntries.expiresAt, creditEntries.id)
    .limit(options.limit ?? 500);
  let expired = 0;
  for (const { tenantId, id } of due) {
    const ctx = systemContext(tenantId, `credits:expiry:${id}`);
    const done = await runUnitOfWork(deps, ctx, derivedKey(['credits.expire', tenantId, id]), async (u) => {
      const [grantRow] = await u.tx
        .select()
        .from(creditEntries)
        .where(tenantWhere(creditEntries, tenantId, eq(creditEntries.id, id)));
      if (!grantRow) return false;
      await lockLedger(u.tx, tenantId, grantRow.organizationId, grantRow.currency);
      const [locked] = await u.tx
        .select()
        .from(creditEntries)
        .where(tenantWhere(creditEntries, tenantId, eq(creditEntries.id, id)));
      if (!locked || locked.remainingCents <= 0) return false;
      const expiry = await insertEntry(
        u.tx,
        tenantId,
        {
          accountId: locked.organizationId,
          currency: locked.currency,
          amountCents: -locked.remainingCents,
          kind: 'expiry',
          reason: 'credit expired',
          sourceType: 'credit_entry',
          sourceId: locked.id,
        },
        u.now,
      );
      await adjustRemaining(u.tx, tenantId, [{ grantId: locked.id, cents: locked.remainingCents }], -1);
      const entry = presentEntry(expiry);
      await u.audit({
        action: 'credit.expire',
        resourceType: 'credit_entry',
        resourceId: entry.id,
        details: { grantId: locked.id },
      });
      await u.emit('credit.expired', { ...entry, grantId: locked.id });
      return true;
    });
    if (done) expired++;
  }
  return expired;
}

/** Runs the expiry every `intervalMs` (one run at a time); returns a stop function. */
export function startCreditExpiry(deps: ServiceDeps, intervalMs: number): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    expireCredits(deps)
      .catch((err) => deps.logger.error({ err }, 'credit expiry run failed'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
