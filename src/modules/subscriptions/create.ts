import { type BillingAdapter, type Invoice, unwrapBilling } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, validationFailed } from '../../core/errors.js';
import {
  abandonIntent,
  beginIntent,
  type Intent,
  type IntentStep,
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { applyCreditOnIssue } from '../credits/index.js';
import { type CreateInput, type CreatePlan, planCreate } from './create-plan.js';
import { emitEntitlementsChanged } from './entitlements/grants.js';
import { getSubscription, insertSubscription, type SubscriptionRow } from './service.js';
import { adapterFor, at, emitInvoice, eventData, snapshot } from './shared.js';

export interface Provisioned {
  billingSubscriptionId: string | null;
  invoice: Invoice | null;
}

const NOT_PROVISIONED: Provisioned = { billingSubscriptionId: null, invoice: null };

export function provisionSteps(plan: CreatePlan, prefix = ''): IntentStep[] {
  if (!plan.billingAccountId) return [];
  const firstInvoice = plan.parentSubscriptionId !== null && plan.firstChargeCents > 0;
  return [
    { step: `${prefix}provision`, kind: 'provision_subscription' },
    ...(firstInvoice ? [{ step: `${prefix}first-period`, kind: 'create_invoice' as const }] : []),
  ];
}

/**
 * Makes the plan's billing calls under `intent`: the subscription, its first period invoiced (an
 * add-on's first, partial period on an invoice of its own).
 */
export async function provision(
  intent: Intent,
  adapter: BillingAdapter,
  plan: CreatePlan,
  prefix = '',
): Promise<Provisioned> {
  if (!plan.billingAccountId) return NOT_PROVISIONED;
  const accountId = plan.billingAccountId;
  const isAddOn = plan.parentSubscriptionId !== null;
  const result = await intent.call(
    `${prefix}provision`,
    (idempotencyKey) =>
      adapter.provisionSubscription({
        accountId,
        productId: plan.productId,
        productName: plan.productName,
        quantity: plan.quantity,
        priceCents: plan.priceCents,
        currency: plan.currency,
        billingInterval: plan.billingInterval,
        currentPeriodStart: plan.periodStart,
        currentPeriodEnd: plan.periodEnd,
        // An add-on's first, partial period is invoiced below at its prorated amount.
        invoiceFirstPeriod: !isAddOn,
        idempotencyKey,
      }),
    (v) => ({ subscriptionId: v.subscription.id, ...(v.invoice ? { invoiceId: v.invoice.id } : {}) }),
  );
  if (!result.ok && result.failure.kind === 'not_found')
    throw validationFailed('accountId', 'exists', 'the billing system has no such account');
  const provisioned = unwrapBilling(result, 'Billing account');
  if (!isAddOn || plan.firstChargeCents <= 0)
    return { billingSubscriptionId: provisioned.subscription.id, invoice: provisioned.invoice };
  const invoice = await intent.call(
    `${prefix}first-period`,
    (idempotencyKey) =>
      adapter.createInvoice({
        accountId,
        currency: plan.currency,
        subscriptionId: provisioned.subscription.id,
        lines: [
          {
            description: `${plan.productName} x ${plan.quantity}, prorated to ${plan.periodEnd.slice(0, 10)}`,
            quantity: 1,
            unitAmountCents: plan.firstChargeCents,
          },
        ],
        idempotencyKey,
      }),
    (v) => ({ invoiceId: v.id }),
  );
  return {
    billingSubscriptionId: provisioned.subscription.id,
    invoice: unwrapBilling(invoice, 'Billing account'),
  };
}

/**
 * In the unit of work: the subscription row (an add-on only while its parent is still the
 * version it was priced at), its audit entry and events. `userId` is the key that asked (null
 * for a journey purchase); `link.orderId` names the order a journey purchase created.
 */
export async function commitCreate(
  u: UnitOfWork,
  plan: CreatePlan,
  provisioned: Provisioned,
  userId: string | null,
  link?: { orderId: string },
): Promise<SubscriptionRow> {
  if (plan.parentSubscriptionId) {
    const parent = await getSubscription(u.tx, u.ctx.tenantId, plan.parentSubscriptionId, true);
    if (
      !parent ||
      parent.version !== plan.parentVersion ||
      parent.status === 'cancelled' ||
      parent.status === 'pending_cancellation'
    )
      throw new AppError('conflict', 'The parent subscription changed meanwhile; read it again and retry');
  }
  const row = await insertSubscription(u.tx, u.ctx.tenantId, {
    id: plan.id,
    productId: plan.productId,
    productName: plan.productName,
    parentSubscriptionId: plan.parentSubscriptionId,
    contactId: plan.contactId,
    organizationId: plan.organizationId,
    orderId: link?.orderId ?? plan.orderId,
    billingAccountId: plan.billingAccountId,
    billingSubscriptionId: provisioned.billingSubscriptionId,
    quantity: plan.quantity,
    priceCents: plan.priceCents,
    currency: plan.currency,
    billingInterval: plan.billingInterval,
    status: 'active',
    customerContext: plan.customerContext,
    billingAnchor: at(plan.billingAnchor),
    currentPeriodStart: at(plan.periodStart),
    currentPeriodEnd: at(plan.periodEnd),
    pendingChange: null,
    cancelledAt: null,
    version: 1,
    operationKey: null,
    operationAt: null,
    createdAt: u.now,
    updatedAt: u.now,
  });
  const invoiceId = provisioned.invoice?.id ?? null;
  await u.audit({
    action: 'subscription.create',
    resourceType: 'subscription',
    resourceId: row.id,
    details: plan.parentSubscriptionId
      ? {
          after: snapshot(row),
          parentSubscriptionId: plan.parentSubscriptionId,
          chargeCents: plan.firstChargeCents,
          invoiceId,
          previewId: plan.previewId,
        }
      : { after: snapshot(row), orderId: row.orderId, invoiceId },
  });
  await u.emit('subscription.created', await eventData(u, row, userId));
  await emitEntitlementsChanged(u, [[null, row]]);
  await emitInvoice(u, provisioned.invoice, row.id);
  return row;
}

export interface CreatedSubscription {
  subscription: SubscriptionRow;
  /** The invoice the billing system issued for it, if any. */
  invoice: Invoice | null;
}

/**
 * Creates a subscription, or buys an add-on. Billing-linked: provisioned in the billing system
 * under an intent first; a failure after the call undoes it (nobody was told of it).
 */
export async function createSubscription(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: CreateInput,
  key: OperationKey<CreatedSubscription>,
): Promise<CreatedSubscription> {
  const plan = await planCreate(deps, ctx.tenantId, input);
  const steps = provisionSteps(plan);
  if (steps.length === 0) {
    return runUnitOfWork(deps, ctx, key, async (u) => ({
      subscription: await commitCreate(u, plan, NOT_PROVISIONED, ctx.keyId),
      invoice: null,
    }));
  }
  const adapter = await adapterFor(deps, ctx.tenantId);
  const intent = await beginIntent(deps.db, deps, ctx, key, {
    operation: 'subscriptions.create',
    recovery: 'compensate',
    plan,
    steps,
  });
  try {
    // A retry that took the intent over continues its stored plan: the same calls, the same keys.
    const stored = intent.plan;
    const provisioned = await provision(intent, adapter, stored);
    const created = await runUnitOfWork(deps, ctx, key, async (u) => {
      const subscription = await commitCreate(u, stored, provisioned, ctx.keyId);
      await intent.complete(u);
      return { subscription, invoice: provisioned.invoice };
    });
    // After the commit: a creation that fails is undone by voiding its invoice, which credit would block.
    await applyCreditOnIssue(deps, ctx, provisioned.invoice, key);
    return created;
  } catch (err) {
    await abandonIntent(deps, intent, adapter, err);
    throw err;
  }
}
