/**
 * The subscription operations, each in two steps:
 * 1. `prepare*` (before any transaction): reads, figures, policies, and the billing-system call
 *    with an idempotency key derived from the operation. An outage there is 502 and nothing of
 *    ours is written.
 * 2. the returned `commit(m, userId)` (inside runMutation / runSystemMutation): re-checks the
 *    row under lock at the version the figures were computed on, writes it, its audit entry and
 *    its events.
 * If the process dies between 1 and 2, repeating the same request repeats the same billing call
 * with the same key, which the billing system answers with its first result: the retry commits
 * what the billing system already holds (see docs/conformance.md, Subscriptions).
 */

import { uuidv7 } from 'uuidv7';
import {
  type BillingAdapter,
  type BillingResult,
  type Invoice,
  presentInvoice,
  unwrapBilling,
} from '../../billing/index.js';
import { AppError, validationFailed } from '../../core/errors.js';
import type { Mutation } from '../../http/mutation.js';
import type { ServiceDeps } from '../../unit-of-work/index.js';
import { resolveAccount } from '../accounts/index.js';
import { pricingDataFor } from '../catalog/index.js';
import { getOrder } from '../orders/index.js';
import { insertSession, presentSession } from '../payments/index.js';
import { assertAllowed } from '../policies/index.js';
import { type ChangeTiming, resolvePrice } from '../price-engine/index.js';
import { subscriptionEventData } from './entitlements.js';
import { nextPeriod, periodEnd } from './periods.js';
import { figuresDigest, readPreviewId } from './preview-token.js';
import {
  type AddOnQuote,
  addOnDigestInput,
  missingFor,
  type PlanChangeQuote,
  planChangeDigestInput,
  quoteAddOn,
  quoteCancellation,
  quotePlanChange,
} from './quotes.js';
import {
  baseOf,
  claimOperation,
  getSubscription,
  insertSubscription,
  liveAddOns,
  lockForChange,
  releaseOperation,
  resolveEntitlements,
  type SubscriptionRow,
  updateSubscription,
} from './service.js';
import type { BillingInterval } from './tables.js';

/**
 * Writes the prepared operation in `m`'s transaction. `userId` is the API key that asked (null for
 * journey purchases and the scheduler); `link.orderId` names the order a journey purchase created.
 */
export type Commit = (
  m: Mutation,
  userId: string | null,
  link?: { orderId: string },
) => Promise<SubscriptionRow>;

export interface Prepared {
  commit: Commit;
  /** The invoice the billing system issued for this operation, if any. */
  invoice: Invoice | null;
}

// ---- shared helpers --------------------------------------------------------------------------

async function adapterFor(deps: ServiceDeps, tenantId: string): Promise<BillingAdapter> {
  const adapter = await deps.billing.forTenant(deps.db, tenantId);
  if (!adapter)
    throw new AppError(
      'conflict',
      'The subscription is billing-linked but the tenant has no active billing integration',
    );
  return adapter;
}

/** Runs billing calls holding the subscription's claim; a failure gives the claim back. */
async function withClaim<T>(
  deps: ServiceDeps,
  sub: SubscriptionRow,
  key: string,
  call: () => Promise<T>,
): Promise<T> {
  if (!(await claimOperation(deps.db, sub.tenantId, sub.id, sub.version, key, deps.clock.now())))
    throw new AppError(
      'conflict',
      'The subscription changed meanwhile, or another change of it is in progress; read it again and retry',
    );
  try {
    return await call();
  } catch (err) {
    await releaseOperation(deps.db, sub.tenantId, sub.id, key);
    throw err;
  }
}

/** The value of a billing result; an unknown billing subscription is a 409 (the two sides disagree). */
function billingValue<T>(result: BillingResult<T>): T {
  if (!result.ok && result.failure.kind === 'not_found')
    throw new AppError(
      'conflict',
      `The billing system does not know this subscription: ${result.failure.message}`,
    );
  return unwrapBilling(result, 'Billing subscription');
}

/** The `data` of a subscription event for `row`, as it is in `m.tx` now (SPEC section 6). */
export async function eventData(m: Mutation, row: SubscriptionRow, userId: string | null) {
  const base = await baseOf(m.tx, m.ctx.tenantId, row);
  const resolved = await resolveEntitlements(m.tx, m.ctx.tenantId, base);
  // A cancelled subscription grants nothing: resolved, and empty.
  const entitlements = resolved && base.status === 'cancelled' ? { ...resolved, entitlements: {} } : resolved;
  return subscriptionEventData(row, entitlements, userId);
}

async function emitInvoice(m: Mutation, invoice: Invoice | null, subscriptionId: string) {
  if (invoice)
    await m.emit('invoice.created', {
      resourceType: 'invoice',
      resourceId: invoice.id,
      invoice: presentInvoice(invoice),
      subscriptionId,
    });
}

const snapshot = (r: SubscriptionRow) => ({
  productId: r.productId,
  quantity: r.quantity,
  priceCents: r.priceCents,
  billingInterval: r.billingInterval,
  status: r.status,
  currentPeriodStart: r.currentPeriodStart.toISOString(),
  currentPeriodEnd: r.currentPeriodEnd.toISOString(),
  pendingChange: r.pendingChange,
});

/** The preview id's instant when it is valid for `sub` at its version (else 400/409). */
function previewInstant(
  raw: string | undefined,
  kind: 'plan_change' | 'cancellation' | 'add_on',
  sub: SubscriptionRow,
  now: Date,
) {
  if (!raw) return null;
  const claims = readPreviewId(raw, kind, sub.id, now);
  if (claims.v !== sub.version)
    throw new AppError('conflict', 'The subscription changed since the preview; preview again');
  return claims;
}

function assertSameFigures(claims: { d: string } | null, figures: unknown) {
  if (claims && claims.d !== figuresDigest(figures))
    throw new AppError('conflict', 'Prices or rules changed since the preview; preview again');
}

// ---- create ----------------------------------------------------------------------------------

export interface CreateInput {
  productId: string;
  quantity: number;
  contactId?: string | undefined;
  organizationId?: string | undefined;
  accountId?: string | undefined;
  orderId?: string | undefined;
  parentSubscriptionId?: string | undefined;
  customerContext?: { segment?: string | null; locale?: string | null; partner?: string | null } | undefined;
  previewId?: string | undefined;
}

/**
 * Prepares a new subscription (or add-on, with `parentSubscriptionId`) for `tenantId`, and
 * provisions it in the billing system when it has a billing account. `basis` makes the billing
 * idempotency key: the same basis provisions once.
 */
export async function prepareCreate(
  deps: ServiceDeps,
  tenantId: string,
  input: CreateInput,
  basis: string,
): Promise<Prepared> {
  const now = deps.clock.now();
  if (input.orderId && !(await getOrder(deps.db, tenantId, input.orderId)))
    throw validationFailed('orderId', 'exists', 'orderId is not an order of this tenant');
  if (input.parentSubscriptionId) return prepareAddOn(deps, tenantId, input, basis, now);
  if (input.previewId)
    throw validationFailed(
      'previewId',
      'matches',
      'previewId applies to add-ons (with parentSubscriptionId) only',
    );

  const { products, rules, offers } = await pricingDataFor(deps.db, tenantId, [input.productId]);
  const product = products[0];
  if (!product) throw validationFailed('productId', 'exists', 'productId is not a product of this tenant');
  if (!product.active) throw validationFailed('productId', 'active', 'productId is not an active product');
  if (product.type === 'add_on')
    throw validationFailed(
      'parentSubscriptionId',
      'required',
      'an add_on product needs parentSubscriptionId',
    );
  if (product.type !== 'subscription' || !product.billingInterval)
    throw validationFailed('productId', 'type', 'productId is not a subscription product');
  if (product.charges.some((c) => c.kind === 'passthrough'))
    throw validationFailed(
      'productId',
      'modeled',
      'productId has passthrough charges; subscriptions need modeled prices',
    );
  if (!input.contactId && !input.organizationId)
    throw validationFailed(
      'organizationId',
      'required',
      'a subscription needs an owner: organizationId or contactId',
    );

  const context = {
    segment: input.customerContext?.segment ?? null,
    locale: input.customerContext?.locale ?? null,
    partner: input.customerContext?.partner ?? null,
  };
  const resolution = resolvePrice({ product, quantity: input.quantity, context, rules, offers, now });
  const interval = product.billingInterval;
  const period = { start: now, end: periodEnd(now, interval, 1) };

  let billingAccountId: string | null = null;
  let adapter: BillingAdapter | null = null;
  if (input.organizationId) {
    const owner = await resolveAccount(deps, tenantId, input.organizationId);
    if (owner?.source !== 'local')
      throw validationFailed('organizationId', 'exists', 'organizationId is not an account of this tenant');
    adapter = await deps.billing.forTenant(deps.db, tenantId);
    const external = owner.account.externalId;
    if (!input.accountId && external && adapter?.isAccountId(external)) billingAccountId = external;
  }
  if (input.accountId) {
    adapter ??= await deps.billing.forTenant(deps.db, tenantId);
    if (!adapter)
      throw validationFailed('accountId', 'integration', 'accountId needs an active billing integration');
    if (!adapter.isAccountId(input.accountId))
      throw validationFailed('accountId', 'format', 'accountId is not a billing account id');
    billingAccountId = input.accountId;
  }

  let billingSubscriptionId: string | null = null;
  let invoice: Invoice | null = null;
  if (billingAccountId && adapter) {
    const result = await adapter.provisionSubscription({
      accountId: billingAccountId,
      productId: product.id,
      productName: product.name,
      quantity: input.quantity,
      priceCents: resolution.totalCents,
      currency: product.currency,
      billingInterval: interval,
      currentPeriodStart: period.start.toISOString(),
      currentPeriodEnd: period.end.toISOString(),
      invoiceFirstPeriod: true,
      idempotencyKey: `subscription-create:${basis}`,
    });
    if (!result.ok && result.failure.kind === 'not_found')
      throw validationFailed('accountId', 'exists', 'the billing system has no such account');
    const provisioned = unwrapBilling(result, 'Billing account');
    billingSubscriptionId = provisioned.subscription.id;
    invoice = provisioned.invoice;
  }

  const id = uuidv7();
  return {
    invoice,
    commit: async (m, userId, link) => {
      const row = await insertSubscription(m.tx, m.ctx.tenantId, {
        id,
        productId: product.id,
        productName: product.name,
        parentSubscriptionId: null,
        contactId: input.contactId ?? null,
        organizationId: input.organizationId ?? null,
        orderId: link?.orderId ?? input.orderId ?? null,
        billingAccountId,
        billingSubscriptionId,
        quantity: input.quantity,
        priceCents: resolution.totalCents,
        currency: product.currency,
        billingInterval: interval,
        status: 'active',
        customerContext: context,
        billingAnchor: period.start,
        currentPeriodStart: period.start,
        currentPeriodEnd: period.end,
        pendingChange: null,
        cancelledAt: null,
        version: 1,
        operationKey: null,
        operationAt: null,
        createdAt: m.now,
        updatedAt: m.now,
      });
      await m.audit({
        action: 'subscription.create',
        resourceType: 'subscription',
        resourceId: row.id,
        details: { after: snapshot(row), orderId: row.orderId, invoiceId: invoice?.id ?? null },
      });
      await m.emit('subscription.created', await eventData(m, row, userId));
      await emitInvoice(m, invoice, row.id);
      return row;
    },
  };
}

async function prepareAddOn(
  deps: ServiceDeps,
  tenantId: string,
  input: CreateInput,
  basis: string,
  now: Date,
): Promise<Prepared> {
  const parentId = input.parentSubscriptionId as string;
  if (input.contactId || input.organizationId || input.accountId || input.customerContext)
    throw validationFailed(
      'parentSubscriptionId',
      'owner',
      'an add-on takes its owner, billing account and customer context from parentSubscriptionId; omit them',
    );
  const parent = await getSubscription(deps.db, tenantId, parentId);
  if (!parent)
    throw validationFailed(
      'parentSubscriptionId',
      'exists',
      'parentSubscriptionId is not a subscription of this tenant',
    );
  const claims = previewInstant(input.previewId, 'add_on', parent, now);
  if (claims && (claims.p !== input.productId || (claims.q ?? 1) !== input.quantity))
    throw validationFailed('previewId', 'matches', 'previewId previews another add-on or quantity');
  const at = claims ? new Date(claims.a) : now;
  const quote = await quoteAddOn(
    deps.db,
    parent,
    input.productId,
    input.quantity,
    at,
    missingFor.operation('productId'),
    'productId',
  );
  assertSameFigures(claims, addOnDigestInput(quote));
  const { billingSubscriptionId, invoice } = await provisionAddOn(deps, quote, basis);

  const id = uuidv7();
  const f = quote.figures;
  return {
    invoice,
    commit: async (m, userId) => {
      const locked = await getSubscription(m.tx, m.ctx.tenantId, parent.id, true);
      if (
        !locked ||
        locked.version !== parent.version ||
        locked.status === 'cancelled' ||
        locked.status === 'pending_cancellation'
      )
        throw new AppError('conflict', 'The parent subscription changed meanwhile; read it again and retry');
      const row = await insertSubscription(m.tx, m.ctx.tenantId, {
        id,
        productId: quote.addOn.id,
        productName: quote.addOn.name,
        parentSubscriptionId: parent.id,
        contactId: parent.contactId,
        organizationId: parent.organizationId,
        orderId: input.orderId ?? null,
        billingAccountId: parent.billingAccountId,
        billingSubscriptionId,
        quantity: quote.quantity,
        priceCents: f.priceCents,
        currency: parent.currency,
        billingInterval: parent.billingInterval,
        status: 'active',
        customerContext: parent.customerContext,
        // Co-terminous with the parent: the same anchor, so both renew together.
        billingAnchor: parent.billingAnchor,
        currentPeriodStart: f.periodStart,
        currentPeriodEnd: f.periodEnd,
        pendingChange: null,
        cancelledAt: null,
        version: 1,
        operationKey: null,
        operationAt: null,
        createdAt: m.now,
        updatedAt: m.now,
      });
      await m.audit({
        action: 'subscription.create',
        resourceType: 'subscription',
        resourceId: row.id,
        details: {
          after: snapshot(row),
          parentSubscriptionId: parent.id,
          chargeCents: f.chargeCents,
          invoiceId: invoice?.id ?? null,
          previewId: input.previewId ?? null,
        },
      });
      await m.emit('subscription.created', await eventData(m, row, userId));
      await emitInvoice(m, invoice, row.id);
      return row;
    },
  };
}

async function provisionAddOn(deps: ServiceDeps, quote: AddOnQuote, basis: string) {
  const { parent, figures: f } = quote;
  if (!parent.billingAccountId) return { billingSubscriptionId: null, invoice: null };
  const adapter = await adapterFor(deps, parent.tenantId);
  const key = `subscription-create:${basis}`;
  const provisioned = unwrapBilling(
    await adapter.provisionSubscription({
      accountId: parent.billingAccountId,
      productId: quote.addOn.id,
      productName: quote.addOn.name,
      quantity: quote.quantity,
      priceCents: f.priceCents,
      currency: parent.currency,
      billingInterval: parent.billingInterval,
      currentPeriodStart: f.periodStart.toISOString(),
      currentPeriodEnd: f.periodEnd.toISOString(),
      // The first, partial period is invoiced below at its prorated amount.
      invoiceFirstPeriod: false,
      idempotencyKey: key,
    }),
    'Billing account',
  );
  const invoice =
    f.chargeCents > 0
      ? unwrapBilling(
          await adapter.createInvoice({
            accountId: parent.billingAccountId,
            currency: parent.currency,
            lines: [
              {
                description: `${quote.addOn.name} x ${quote.quantity}, prorated to ${f.periodEnd.toISOString().slice(0, 10)}`,
                quantity: 1,
                unitAmountCents: f.chargeCents,
              },
            ],
            idempotencyKey: `${key}:first-period`,
          }),
          'Billing account',
        )
      : null;
  return { billingSubscriptionId: provisioned.subscription.id, invoice };
}

// ---- change plan / quantity --------------------------------------------------------------------

export type ChangeRequest =
  | {
      kind: 'plan';
      targetProductId: string;
      timing?: ChangeTiming | undefined;
      previewId?: string | undefined;
    }
  | { kind: 'quantity'; quantity: number; timing?: ChangeTiming | undefined };

/** Prepares a plan or quantity change: the same quote as the preview, policies, the billing call. */
export async function prepareChange(
  deps: ServiceDeps,
  sub: SubscriptionRow,
  request: ChangeRequest,
): Promise<Prepared & { quote: PlanChangeQuote }> {
  const now = deps.clock.now();
  const claims = request.kind === 'plan' ? previewInstant(request.previewId, 'plan_change', sub, now) : null;
  if (claims && request.kind === 'plan') {
    if (claims.p !== request.targetProductId)
      throw validationFailed('previewId', 'matches', 'previewId previews a change to another product');
    if (request.timing !== undefined && request.timing !== claims.t)
      throw validationFailed('previewId', 'matches', 'previewId previews another timing');
  }
  const at = claims ? new Date(claims.a) : now;
  const timing = claims ? claims.t : request.timing;
  const quote = await quotePlanChange(
    deps.db,
    sub,
    request.kind === 'plan'
      ? { kind: 'plan', targetProductId: request.targetProductId }
      : { kind: 'quantity', quantity: request.quantity },
    timing,
    at,
    missingFor.operation(request.kind === 'plan' ? 'targetProductId' : 'quantity'),
  );
  assertSameFigures(claims, planChangeDigestInput(quote));
  assertAllowed(quote.policy);
  const f = quote.figures;
  const immediate = f.changeTiming === 'immediate';
  const key = `subscription:${sub.id}:v${sub.version}:${quote.kind}:${quote.target.id}:${quote.quantity}:${f.changeTiming}`;
  let invoice: Invoice | null = null;
  let claimed: string | null = null;
  if (immediate && sub.billingSubscriptionId) {
    const billingId = sub.billingSubscriptionId;
    const adapter = await adapterFor(deps, sub.tenantId);
    claimed = key;
    invoice = await withClaim(deps, sub, key, async () => {
      const changed = billingValue(
        await adapter.changeSubscription({
          subscriptionId: billingId,
          productId: quote.target.id,
          productName: quote.target.name,
          quantity: quote.quantity,
          priceCents: f.newPriceCents,
          // A switch of interval charges its new period through the renewal below.
          chargeCents: f.newPeriod ? 0 : Math.max(0, f.netCents),
          creditCents: f.newPeriod ? f.creditCents : Math.max(0, -f.netCents),
          idempotencyKey: key,
        }),
      );
      if (!f.newPeriod) return changed.invoice;
      const renewed = billingValue(
        await adapter.renewSubscription({
          subscriptionId: billingId,
          currentPeriodStart: f.newPeriod.start.toISOString(),
          currentPeriodEnd: f.newPeriod.end.toISOString(),
          idempotencyKey: `${key}:new-period`,
        }),
      );
      return renewed.invoice;
    });
  }

  return {
    quote,
    invoice,
    commit: async (m, userId) => {
      const before = await lockForChange(m.tx, m.ctx.tenantId, sub.id, sub.version, claimed);
      const common = { version: before.version + 1, operationKey: null, operationAt: null, updatedAt: m.now };
      const after = immediate
        ? await updateSubscription(m.tx, m.ctx.tenantId, sub.id, {
            ...common,
            productId: quote.target.id,
            productName: quote.target.name,
            quantity: quote.quantity,
            priceCents: f.newPriceCents,
            billingInterval: quote.targetInterval,
            status: 'active',
            pendingChange: null,
            ...(f.newPeriod
              ? {
                  billingAnchor: f.newPeriod.start,
                  currentPeriodStart: f.newPeriod.start,
                  currentPeriodEnd: f.newPeriod.end,
                }
              : {}),
          })
        : await updateSubscription(m.tx, m.ctx.tenantId, sub.id, {
            ...common,
            status: 'pending_change',
            pendingChange: {
              kind: quote.kind,
              productId: quote.target.id,
              productName: quote.target.name,
              quantity: quote.quantity,
              priceCents: f.newPriceCents,
              billingInterval: quote.targetInterval,
              effectiveAt: f.effectiveDate.toISOString(),
            },
          });
      await m.audit({
        action: 'subscription.change',
        resourceType: 'subscription',
        resourceId: sub.id,
        details: {
          change: quote.kind,
          before: snapshot(before),
          after: snapshot(after),
          rule: quote.rule.ruleId,
          changeTiming: f.changeTiming,
          prorationType: f.prorationType,
          effectiveDate: f.effectiveDate.toISOString(),
          creditCents: f.creditCents,
          chargeCents: f.chargeCents,
          netCents: f.netCents,
          invoiceId: invoice?.id ?? null,
          previewId: (request.kind === 'plan' && request.previewId) || null,
        },
      });
      await m.emit('subscription.changed', await eventData(m, after, userId));
      await emitInvoice(m, invoice, sub.id);
      return after;
    },
  };
}

// ---- cancel ----------------------------------------------------------------------------------

export async function prepareCancel(
  deps: ServiceDeps,
  sub: SubscriptionRow,
  request: { timing?: ChangeTiming | undefined; previewId?: string | undefined },
): Promise<Prepared> {
  const now = deps.clock.now();
  const claims = previewInstant(request.previewId, 'cancellation', sub, now);
  if (claims && request.timing !== undefined && request.timing !== claims.t)
    throw validationFailed('previewId', 'matches', 'previewId previews another timing');
  const timing = claims?.t ?? request.timing ?? 'end_of_period';
  const at = claims ? new Date(claims.a) : now;
  const figures = quoteCancellation(sub, timing, at);
  assertSameFigures(claims, figures);
  const addOns = sub.parentSubscriptionId ? [] : await liveAddOns(deps.db, sub.tenantId, sub.id);
  const key = `subscription:${sub.id}:v${sub.version}:cancel:${timing}`;
  let claimed: string | null = null;
  const linked = [sub, ...addOns].filter((s) => s.billingSubscriptionId);
  if (linked.length > 0) {
    const adapter = await adapterFor(deps, sub.tenantId);
    claimed = key;
    await withClaim(deps, sub, key, async () => {
      for (const s of linked) {
        billingValue(
          await adapter.cancelSubscription({
            subscriptionId: s.billingSubscriptionId as string,
            timing,
            idempotencyKey: `subscription:${s.id}:v${s.version}:cancel:${timing}`,
          }),
        );
      }
    });
  }
  const status = timing === 'immediate' ? 'cancelled' : 'pending_cancellation';
  return {
    invoice: null,
    commit: async (m, userId) => {
      const before = await lockForChange(m.tx, m.ctx.tenantId, sub.id, sub.version, claimed);
      const patch = (v: number) =>
        ({
          status,
          pendingChange: null,
          cancelledAt: timing === 'immediate' ? figures.effectiveDate : null,
          version: v + 1,
          operationKey: null,
          operationAt: null,
          updatedAt: m.now,
        }) as const;
      const ended: SubscriptionRow[] = [];
      for (const addOn of addOns) {
        const current = await getSubscription(m.tx, m.ctx.tenantId, addOn.id, true);
        if (!current || current.status === 'cancelled') continue;
        ended.push(await updateSubscription(m.tx, m.ctx.tenantId, addOn.id, patch(current.version)));
      }
      const after = await updateSubscription(m.tx, m.ctx.tenantId, sub.id, patch(before.version));
      for (const row of [after, ...ended]) {
        await m.audit({
          action: 'subscription.cancel',
          resourceType: 'subscription',
          resourceId: row.id,
          details: {
            timing,
            effectiveDate: figures.effectiveDate.toISOString(),
            status: row.status,
            ...(row.id === sub.id
              ? { before: snapshot(before), previewId: request.previewId ?? null }
              : { parentSubscriptionId: sub.id }),
          },
        });
        await m.emit('subscription.cancelled', await eventData(m, row, userId));
      }
      return after;
    },
  };
}

// ---- renew (and what the scheduler does at a period end) ------------------------------------

/**
 * Renews `sub` into its next period once `currentPeriodEnd` has passed, applying a pending
 * change first; invoices the period (billing-linked) and opens a payment session for it.
 */
export async function prepareRenewal(deps: ServiceDeps, sub: SubscriptionRow): Promise<Prepared> {
  const now = deps.clock.now();
  if (sub.status === 'cancelled') throw new AppError('conflict', 'The subscription is cancelled');
  if (sub.status === 'pending_cancellation')
    throw new AppError('conflict', 'The subscription ends at its period end; it does not renew');
  if (now.getTime() < sub.currentPeriodEnd.getTime())
    throw new AppError(
      'conflict',
      `The subscription is not due for renewal until ${sub.currentPeriodEnd.toISOString()}`,
    );
  const pending = sub.pendingChange;
  const interval: BillingInterval = pending?.billingInterval ?? sub.billingInterval;
  const switches = interval !== sub.billingInterval;
  const anchor = switches ? sub.currentPeriodEnd : sub.billingAnchor;
  const period = switches
    ? { start: sub.currentPeriodEnd, end: periodEnd(sub.currentPeriodEnd, interval, 1) }
    : nextPeriod(anchor, interval, sub.currentPeriodEnd);
  const priceCents = pending?.priceCents ?? sub.priceCents;
  const key = `subscription:${sub.id}:renew:${sub.currentPeriodEnd.toISOString()}`;
  let invoice: Invoice | null = null;
  let claimed: string | null = null;
  if (sub.billingSubscriptionId) {
    const billingId = sub.billingSubscriptionId;
    const adapter = await adapterFor(deps, sub.tenantId);
    claimed = key;
    invoice = await withClaim(deps, sub, key, async () => {
      if (pending)
        billingValue(
          await adapter.changeSubscription({
            subscriptionId: billingId,
            productId: pending.productId,
            productName: pending.productName,
            quantity: pending.quantity,
            priceCents: pending.priceCents,
            idempotencyKey: `${key}:pending-change`,
          }),
        );
      return billingValue(
        await adapter.renewSubscription({
          subscriptionId: billingId,
          currentPeriodStart: period.start.toISOString(),
          currentPeriodEnd: period.end.toISOString(),
          idempotencyKey: key,
        }),
      ).invoice;
    });
  }
  return {
    invoice,
    commit: async (m, userId) => {
      const before = await lockForChange(m.tx, m.ctx.tenantId, sub.id, sub.version, claimed);
      const after = await updateSubscription(m.tx, m.ctx.tenantId, sub.id, {
        ...(pending
          ? { productId: pending.productId, productName: pending.productName, quantity: pending.quantity }
          : {}),
        priceCents,
        billingInterval: interval,
        billingAnchor: anchor,
        currentPeriodStart: period.start,
        currentPeriodEnd: period.end,
        status: 'active',
        pendingChange: null,
        version: before.version + 1,
        operationKey: null,
        operationAt: null,
        updatedAt: m.now,
      });
      const amountCents = invoice ? invoice.balanceCents : priceCents;
      const accountId = after.billingAccountId ?? after.organizationId ?? after.contactId;
      const session =
        amountCents > 0 && accountId
          ? presentSession(
              await insertSession(
                m.tx,
                m.ctx.tenantId,
                {
                  accountId,
                  amountCents,
                  currency: after.currency,
                  invoiceId: invoice?.id ?? null,
                  paymentPageSlug: null,
                },
                m.now,
              ),
            )
          : null;
      if (pending) {
        await m.audit({
          action: 'subscription.change',
          resourceType: 'subscription',
          resourceId: sub.id,
          details: {
            change: pending.kind,
            before: snapshot(before),
            after: snapshot(after),
            appliedAtPeriodEnd: true,
          },
        });
        await m.emit('subscription.changed', await eventData(m, after, userId));
      }
      await m.audit({
        action: 'subscription.renew',
        resourceType: 'subscription',
        resourceId: sub.id,
        details: {
          currentPeriodStart: period.start.toISOString(),
          currentPeriodEnd: period.end.toISOString(),
          priceCents,
          invoiceId: invoice?.id ?? null,
          paymentSessionId: session?.id ?? null,
        },
      });
      await m.emit('subscription.renewed', await eventData(m, after, userId));
      await emitInvoice(m, invoice, sub.id);
      if (session) await m.emit('payment.session_created', session);
      return after;
    },
  };
}

/** Ends a `pending_cancellation` subscription whose period has ended (the scheduler). */
export async function prepareFinalCancel(deps: ServiceDeps, sub: SubscriptionRow): Promise<Prepared> {
  const key = `subscription:${sub.id}:cancel-at-period-end`;
  let claimed: string | null = null;
  if (sub.billingSubscriptionId) {
    const billingId = sub.billingSubscriptionId;
    const adapter = await adapterFor(deps, sub.tenantId);
    claimed = key;
    await withClaim(deps, sub, key, async () => {
      const result = await adapter.cancelSubscription({
        subscriptionId: billingId,
        timing: 'immediate',
        idempotencyKey: key,
      });
      // Already cancelled there: the two sides agree.
      if (!result.ok && result.failure.kind === 'conflict') return;
      billingValue(result);
    });
  }
  return {
    invoice: null,
    commit: async (m, userId) => {
      const before = await lockForChange(m.tx, m.ctx.tenantId, sub.id, sub.version, claimed);
      const after = await updateSubscription(m.tx, m.ctx.tenantId, sub.id, {
        status: 'cancelled',
        cancelledAt: before.currentPeriodEnd,
        version: before.version + 1,
        operationKey: null,
        operationAt: null,
        updatedAt: m.now,
      });
      await m.audit({
        action: 'subscription.cancel',
        resourceType: 'subscription',
        resourceId: sub.id,
        details: {
          timing: 'end_of_period',
          effectiveDate: before.currentPeriodEnd.toISOString(),
          status: 'cancelled',
        },
      });
      await m.emit('subscription.cancelled', await eventData(m, after, userId));
      return after;
    },
  };
}
