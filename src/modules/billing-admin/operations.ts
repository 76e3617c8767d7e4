import { type BuiltinBilling, voidRefusal } from '../../billing/builtin/index.js';
import {
  type BillingAccount,
  type BillingPaymentMethod,
  type BillingResult,
  type Invoice,
  type InvoiceLineInput,
  ok,
  presentInvoice,
  unwrapBilling,
} from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { checkedSum, checkedTotal } from '../../core/money.js';
import {
  abandonIntent,
  anyCallTookEffect,
  beginIntent,
  type Intent,
  type OperationKey,
  type ResumeIntent,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { applyReservedCredit, type ReservedCredit, reserveCreditOnIssue } from '../credits/index.js';
import { deleteIntegration, saveIntegration } from './integration.js';

// The billing admin operations: the tenant's integration (local), and the operator's commands to
// the built-in engine, which changes the billing system: each goes through an intent, like any
// other billing effect, and its audit entry (and event) commits with the intent's close.

export async function setBillingIntegration(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { adapter: string; config: Record<string, unknown> },
  key: OperationKey<{ at: Date }>,
): Promise<{ at: Date }> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    await saveIntegration(u.tx, ctx.tenantId, input.adapter, input.config, u.now);
    await u.audit({
      action: 'billing_integration.update',
      resourceType: 'billing_integration',
      resourceId: ctx.tenantId,
      details: { after: { adapter: input.adapter } },
    });
    return { at: u.now };
  });
}

export async function removeBillingIntegration(
  deps: ServiceDeps,
  ctx: OperationContext,
  _input: Record<string, never>,
  key: OperationKey<null>,
): Promise<null> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    if (!(await deleteIntegration(u.tx, ctx.tenantId)))
      throw new AppError('not_found', 'No active billing integration');
    await u.audit({
      action: 'billing_integration.delete',
      resourceType: 'billing_integration',
      resourceId: ctx.tenantId,
    });
    return null;
  });
}

/** An operator command to the built-in engine; JSON, kept in its intent. */
export type OperatorCommand =
  | { action: 'open_account'; name: string; currency: string; contacts: BillingAccount['contacts'] }
  | {
      action: 'issue_invoice';
      accountId: string;
      currency: string;
      lines: InvoiceLineInput[];
      dueDate?: string;
    }
  | {
      action: 'close_invoice';
      invoiceId: string;
      status: 'void' | 'uncollectible';
      before: Invoice['status'];
    }
  | {
      action: 'add_payment_method';
      accountId: string;
      method: Omit<BillingPaymentMethod, 'id' | 'isDefault'>;
    };

export type OperatorResult =
  | { action: 'open_account'; account: BillingAccount }
  | { action: 'issue_invoice'; invoice: Invoice }
  | { action: 'close_invoice'; invoice: Invoice }
  | { action: 'add_payment_method'; accountId: string; method: BillingPaymentMethod };

/** The engine call of a command, under its idempotency key. */
async function call(
  engine: BuiltinBilling,
  c: OperatorCommand,
  key: string,
): Promise<BillingResult<OperatorResult>> {
  const wrap = <T>(r: BillingResult<T>, as: (v: T) => OperatorResult): BillingResult<OperatorResult> =>
    r.ok ? ok(as(r.value)) : r;
  switch (c.action) {
    case 'open_account':
      return ok({
        action: c.action,
        account: await engine.createAccount(
          { name: c.name, currency: c.currency, contacts: c.contacts },
          key,
        ),
      });
    case 'issue_invoice': {
      const { action: _a, ...input } = c;
      return wrap(await engine.createInvoice({ ...input, idempotencyKey: key }), (invoice) => ({
        action: c.action,
        invoice,
      }));
    }
    case 'close_invoice':
      return wrap(await engine.closeInvoice(c.invoiceId, c.status, key), (invoice) => ({
        action: c.action,
        invoice,
      }));
    case 'add_payment_method':
      return wrap(await engine.addPaymentMethod(c.accountId, c.method, key), (method) => ({
        action: c.action,
        accountId: c.accountId,
        method,
      }));
  }
}

/** The audit entry (and event) of a command's result. */
async function record(u: UnitOfWork, c: OperatorCommand, r: OperatorResult) {
  if (r.action === 'open_account')
    return u.audit({
      action: 'billing_account.create',
      resourceType: 'billing_account',
      resourceId: r.account.id,
    });
  if (r.action === 'add_payment_method')
    return u.audit({
      action: 'billing_payment_method.create',
      resourceType: 'billing_payment_method',
      resourceId: r.method.id,
    });
  if (r.action === 'issue_invoice') {
    await u.audit({ action: 'billing_invoice.create', resourceType: 'invoice', resourceId: r.invoice.id });
    return u.emit('invoice.created', {
      resourceType: 'invoice',
      resourceId: r.invoice.id,
      invoice: presentInvoice(r.invoice),
    });
  }
  if (c.action === 'close_invoice' && c.before !== r.invoice.status)
    await u.audit({
      action: c.status === 'void' ? 'billing_invoice.void' : 'billing_invoice.mark_uncollectible',
      resourceType: 'invoice',
      resourceId: r.invoice.id,
      details: { before: { status: c.before }, after: { status: r.invoice.status } },
    });
}

const describe = (r: OperatorResult) =>
  r.action === 'open_account'
    ? { accountId: r.account.id }
    : r.action === 'add_payment_method'
      ? { accountId: r.accountId }
      : { invoiceId: r.invoice.id };

async function execute(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<OperatorResult>,
  engine: BuiltinBilling,
  intent: Intent<OperatorCommand>,
  resolvedBy: 'operation' | 'reconciler' = 'operation',
): Promise<OperatorResult> {
  try {
    const command = intent.plan;
    const result = unwrapBilling(
      await intent.call('call', (k) => call(engine, command, k), describe),
      'Billing account',
    );
    let credit: ReservedCredit = null;
    const recorded = await runUnitOfWork(deps, ctx, key, async (u) => {
      await record(u, command, result);
      await intent.complete(u, resolvedBy);
      if (result.action === 'issue_invoice')
        credit = await reserveCreditOnIssue(u, deps, engine, result.invoice, key);
      return result;
    });
    await applyReservedCredit(deps, ctx, engine, credit);
    return recorded;
  } catch (err) {
    await abandonIntent(deps, intent, engine, err);
    throw err;
  }
}

/**
 * Runs an operator command on the tenant's built-in engine: the engine call under an intent, then
 * its audit entry. Left pending (a crash between the two), the reconciler finishes it.
 */
export async function runOperatorCommand(
  deps: ServiceDeps,
  ctx: OperationContext,
  engine: BuiltinBilling,
  command: OperatorCommand,
  key: OperationKey<OperatorResult>,
): Promise<OperatorResult> {
  const intent = await beginIntent(deps.db, deps, ctx, key, {
    operation: 'billing.operator',
    recovery: 'roll_forward',
    plan: command,
    steps: [{ step: 'call', kind: 'operator' }],
  });
  return execute(deps, ctx, key, engine, intent);
}

/** The tenant's built-in engine, with the integration's config when builtin is the active adapter. */
export async function builtinEngineFor(deps: ServiceDeps, tenantId: string): Promise<BuiltinBilling> {
  const integration = await deps.billing.integration(deps.db, tenantId);
  const config = integration?.adapter === 'builtin' ? integration.config : {};
  return deps.billing.adapter('builtin', tenantId, config) as unknown as BuiltinBilling;
}

/**
 * The reconciler finishing an operator command: if the engine took it (the same key), its audit
 * entry is written; if not, the intent is abandoned (the operator was told it failed).
 */
export const resumeOperatorCommand: ResumeIntent = async (deps, intent) => {
  const ctx = {
    tenantId: intent.row.tenantId,
    keyId: intent.row.actorKeyId,
    requestId: intent.row.requestId,
  };
  const engine = await builtinEngineFor(deps, ctx.tenantId);
  if (!(await anyCallTookEffect(deps, intent, engine, async () => {}))) return 'abandoned';
  await execute(
    deps,
    ctx,
    { id: intent.row.operationId },
    engine,
    intent as Intent<OperatorCommand>,
    'reconciler',
  );
  return 'completed';
};

/** POST /admin/billing/accounts: opens an account in the built-in engine. */
export async function openBillingAccount(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { name: string; currency: string; contacts: BillingAccount['contacts'] },
  key: OperationKey<OperatorResult>,
): Promise<OperatorResult> {
  const engine = await builtinEngineFor(deps, ctx.tenantId);
  return runOperatorCommand(deps, ctx, engine, { action: 'open_account', ...input }, key);
}

/** POST /admin/billing/accounts/{id}/invoices: issues an open invoice in the account's currency. */
export async function issueBillingInvoice(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { accountId: string; lines: InvoiceLineInput[]; dueDate?: string | undefined },
  key: OperationKey<OperatorResult>,
): Promise<OperatorResult> {
  // Every line, and the invoice, must stay an amount we hold: checked before any call.
  checkedSum(
    input.lines.map((l, i) => checkedTotal((l.quantity ?? 1) * l.unitAmountCents, `lines.${i}.quantity`)),
    'lines',
  );
  const engine = await builtinEngineFor(deps, ctx.tenantId);
  const account = unwrapBilling(await engine.getAccount(input.accountId), 'Billing account');
  const command: OperatorCommand = {
    action: 'issue_invoice',
    accountId: account.id,
    currency: account.currency,
    lines: input.lines,
    ...(input.dueDate ? { dueDate: input.dueDate } : {}),
  };
  return runOperatorCommand(deps, ctx, engine, command, key);
}

/** Voids or writes off an open built-in invoice (already so: unchanged, no audit entry); a partly paid one is not voided (409). */
export async function closeBillingInvoice(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { invoiceId: string; status: 'void' | 'uncollectible' },
  key: OperationKey<OperatorResult>,
): Promise<OperatorResult> {
  const engine = await builtinEngineFor(deps, ctx.tenantId);
  const before = unwrapBilling(await engine.getInvoice(input.invoiceId), 'Invoice');
  // The engine's rule, checked before anything is recorded (the engine checks it again under its lock).
  const refused = input.status === 'void' && before.status === 'open' ? voidRefusal(before) : null;
  if (refused) throw new AppError('conflict', refused);
  const command: OperatorCommand = {
    action: 'close_invoice',
    invoiceId: before.id,
    status: input.status,
    before: before.status,
  };
  return runOperatorCommand(deps, ctx, engine, command, key);
}

/** Stores a payment method on a built-in billing account (the first becomes the default). */
export async function addBillingPaymentMethod(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { accountId: string; method: Omit<BillingPaymentMethod, 'id' | 'isDefault'> },
  key: OperationKey<OperatorResult>,
): Promise<OperatorResult> {
  const engine = await builtinEngineFor(deps, ctx.tenantId);
  // The account is checked before the intent: an unknown one is 404 with nothing recorded.
  unwrapBilling(await engine.getAccount(input.accountId), 'Billing account');
  return runOperatorCommand(deps, ctx, engine, { action: 'add_payment_method', ...input }, key);
}
