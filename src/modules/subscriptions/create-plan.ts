import { uuidv7 } from 'uuidv7';
import type { BillingAdapter } from '../../billing/index.js';
import { AppError, validationFailed } from '../../core/errors.js';
import { checkedTotal } from '../../core/money.js';
import type { ServiceDeps } from '../../unit-of-work/index.js';
import { resolveAccount } from '../accounts/index.js';
import { pricingDataFor, resolvePrice } from '../catalog/index.js';
import { periodEnd } from './amounts/periods.js';
import { addOnDigestInput, missingFor, quoteAddOn } from './amounts/quotes.js';
import { getSubscription, subscriptionForOrder } from './service.js';
import { assertSameFigures, previewInstant } from './shared.js';
import type { BillingInterval } from './tables.js';

// Deciding a new subscription or add-on: validated, priced, its periods and billing account
// chosen, before any billing call.

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
 * A new subscription (or add-on) as decided before any billing call: validated, priced, its
 * periods and billing account chosen. JSON, as it is kept in the operation's intent.
 */
export interface CreatePlan {
  id: string;
  productId: string;
  productName: string;
  parentSubscriptionId: string | null;
  /** An add-on: the parent's version it was priced at (the commit checks it still is). */
  parentVersion: number | null;
  contactId: string | null;
  organizationId: string | null;
  orderId: string | null;
  billingAccountId: string | null;
  quantity: number;
  priceCents: number;
  currency: string;
  billingInterval: BillingInterval;
  customerContext: Record<string, string | null>;
  billingAnchor: string;
  periodStart: string;
  periodEnd: string;
  /** An add-on: its first, partial period, prorated and invoiced on its own. */
  firstChargeCents: number;
  previewId: string | null;
}

/** What the billing system made for a plan. */

/** The billing account a new subscription is provisioned in: explicit, or the organization's. */
async function billingAccountFor(
  deps: ServiceDeps,
  tenantId: string,
  input: CreateInput,
): Promise<string | null> {
  let adapter: BillingAdapter | null | undefined;
  let account: string | null = null;
  if (input.organizationId) {
    const owner = await resolveAccount(deps, tenantId, input.organizationId);
    if (owner?.source !== 'local')
      throw validationFailed('organizationId', 'exists', 'organizationId is not an account of this tenant');
    adapter = await deps.billing.forTenant(deps.db, tenantId);
    const external = owner.account.externalId;
    if (!input.accountId && external && adapter?.isAccountId(external)) account = external;
  }
  if (input.accountId) {
    adapter ??= await deps.billing.forTenant(deps.db, tenantId);
    if (!adapter)
      throw validationFailed('accountId', 'integration', 'accountId needs an active billing integration');
    if (!adapter.isAccountId(input.accountId))
      throw validationFailed('accountId', 'format', 'accountId is not a billing account id');
    account = input.accountId;
  }
  return account;
}

async function planBase(
  deps: ServiceDeps,
  tenantId: string,
  input: CreateInput,
  now: Date,
): Promise<CreatePlan> {
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
  checkedTotal(resolution.subtotalCents, 'quantity');
  return {
    id: uuidv7(),
    productId: product.id,
    productName: product.name,
    parentSubscriptionId: null,
    parentVersion: null,
    contactId: input.contactId ?? null,
    organizationId: input.organizationId ?? null,
    orderId: input.orderId ?? null,
    billingAccountId: await billingAccountFor(deps, tenantId, input),
    quantity: input.quantity,
    priceCents: resolution.totalCents,
    currency: product.currency,
    billingInterval: product.billingInterval,
    customerContext: context,
    billingAnchor: now.toISOString(),
    periodStart: now.toISOString(),
    periodEnd: periodEnd(now, product.billingInterval, 1).toISOString(),
    firstChargeCents: 0,
    previewId: null,
  };
}

async function planAddOn(
  deps: ServiceDeps,
  tenantId: string,
  input: CreateInput,
  now: Date,
): Promise<CreatePlan> {
  if (input.contactId || input.organizationId || input.accountId || input.customerContext)
    throw validationFailed(
      'parentSubscriptionId',
      'owner',
      'an add-on takes its owner, billing account and customer context from parentSubscriptionId; omit them',
    );
  const parent = await getSubscription(deps.db, tenantId, input.parentSubscriptionId as string);
  if (!parent)
    throw validationFailed(
      'parentSubscriptionId',
      'exists',
      'parentSubscriptionId is not a subscription of this tenant',
    );
  const claims = previewInstant(input.previewId, 'add_on', parent, now);
  if (claims && (claims.p !== input.productId || (claims.q ?? 1) !== input.quantity))
    throw validationFailed('previewId', 'matches', 'previewId previews another add-on or quantity');
  const when = claims ? new Date(claims.a) : now;
  const quote = await quoteAddOn(
    deps.db,
    parent,
    input.productId,
    input.quantity,
    when,
    missingFor.operation('productId'),
    'productId',
  );
  assertSameFigures(claims, addOnDigestInput(quote));
  const f = quote.figures;
  return {
    id: uuidv7(),
    productId: quote.addOn.id,
    productName: quote.addOn.name,
    parentSubscriptionId: parent.id,
    parentVersion: parent.version,
    contactId: parent.contactId,
    organizationId: parent.organizationId,
    orderId: input.orderId ?? null,
    billingAccountId: parent.billingAccountId,
    quantity: quote.quantity,
    priceCents: f.priceCents,
    currency: parent.currency,
    billingInterval: parent.billingInterval,
    customerContext: parent.customerContext,
    // Co-terminous with the parent: the same anchor, so both renew together.
    billingAnchor: parent.billingAnchor.toISOString(),
    periodStart: f.periodStart.toISOString(),
    periodEnd: f.periodEnd.toISOString(),
    firstChargeCents: f.chargeCents,
    previewId: input.previewId ?? null,
  };
}

/**
 * Validates and prices a new subscription (or add-on, with `parentSubscriptionId`) for
 * `tenantId`: everything that can be checked is, before any billing call.
 */
export async function planCreate(
  deps: ServiceDeps,
  tenantId: string,
  input: CreateInput,
): Promise<CreatePlan> {
  const now = deps.clock.now();
  if (input.orderId) {
    if (!(await deps.lookups.order(deps.db, tenantId, input.orderId)))
      throw validationFailed('orderId', 'exists', 'orderId is not an order of this tenant');
    if (await subscriptionForOrder(deps.db, tenantId, input.orderId, input.productId))
      throw new AppError('conflict', 'This order already has a subscription to this product');
  }
  return input.parentSubscriptionId
    ? planAddOn(deps, tenantId, input, now)
    : planBase(deps, tenantId, input, now);
}

/** The billing calls a plan needs, named after `prefix` (an order provisions several). */
