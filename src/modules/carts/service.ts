import { randomBytes } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import { next } from '../../core/actions.js';
import { AppError, notFound } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { ChargeModel } from '../catalog/index.js';
import { type PromoState, storedPromo } from './promo.js';
import type { CartCreate, CartSchema } from './schemas.js';
import { type CartRow, type CustomerContext, cartItems, carts, type ItemRow } from './tables.js';

// Carts keep no audit entries and emit no events: SPEC.md audits every mutation on orders (and
// lists no cart event types); a cart becomes an auditable fact only when an order is made from it.

export type CartApi = Static<typeof CartSchema>;
type CreateInput = Static<typeof CartCreate>;

const repo = tenantRepo(carts);

export const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

export function normalContext(context: CustomerContext | undefined) {
  return {
    segment: context?.segment ?? null,
    locale: context?.locale ?? null,
    partner: context?.partner ?? null,
  };
}

function presentItem(row: ItemRow): CartApi['items'][number] {
  return {
    id: row.id,
    productId: row.productId,
    productName: row.productName,
    productType: row.productType,
    quantity: row.quantity,
    unitPriceCents: row.unitPriceCents,
    totalCents: row.totalCents,
    listCents: row.listCents,
    charges: row.charges.map((c) => ({
      chargeId: c.chargeId,
      name: c.name,
      kind: c.kind,
      // Written from the pricing engine's charges, so one of its models (or null for passthrough).
      chargeModel: c.chargeModel as ChargeModel | null,
      amountCents: c.amountCents,
    })),
    appliedOffers: row.appliedOffers,
    appliedPriceRules: row.appliedPriceRules,
    requiresQuote: row.requiresQuote,
  };
}

export function presentCart(cart: CartRow, items: readonly ItemRow[], promo: PromoState | null): CartApi {
  return {
    id: cart.id,
    tenantId: cart.tenantId,
    sessionId: cart.sessionId,
    status: cart.status,
    currency: cart.currency,
    customerContext: normalContext(cart.customerContext),
    contactId: cart.contactId,
    organizationId: cart.organizationId,
    items: items.map(presentItem),
    subtotalCents: cart.subtotalCents,
    discountCents: cart.discountCents,
    totalCents: cart.totalCents,
    promo,
    requiresQuote: items.some((i) => i.requiresQuote),
    createdAt: iso(cart.createdAt),
    updatedAt: iso(cart.updatedAt),
  };
}

export async function itemsOf(db: Queryable, tenantId: string, cartId: string): Promise<ItemRow[]> {
  return db
    .select()
    .from(cartItems)
    .where(tenantWhere(cartItems, tenantId, eq(cartItems.cartId, cartId)))
    .orderBy(asc(cartItems.createdAt), asc(cartItems.id));
}

export async function lockCart(
  tx: Queryable,
  tenantId: string,
  cartId: string,
): Promise<CartRow | undefined> {
  const [row] = await tx
    .select()
    .from(carts)
    .where(tenantWhere(carts, tenantId, eq(carts.id, cartId)))
    .for('update');
  return row;
}

export async function getCart(db: Queryable, tenantId: string, cartId: string): Promise<CartApi | undefined> {
  const cart = await repo.get(db, tenantId, cartId);
  if (!cart) return undefined;
  const items = await itemsOf(db, tenantId, cartId);
  return presentCart(cart, items, await storedPromo(db, cart, items));
}

/** What a catalog answer needs of a cart the caller names; undefined when it is not the tenant's. */
export async function cartHeader(
  db: Queryable,
  tenantId: string,
  cartId: string,
): Promise<{ id: string; currency: string; active: boolean } | undefined> {
  const cart = await repo.get(db, tenantId, cartId);
  return cart && { id: cart.id, currency: cart.currency, active: cart.status === 'active' };
}

/** Inserts a new, empty cart; its row. */
export async function insertCartRow(
  tx: Queryable,
  tenantId: string,
  input: CreateInput,
  now: Date,
): Promise<CartRow> {
  return repo.insert(tx, tenantId, {
    id: uuidv7(),
    sessionId: input.sessionId ?? `sess_${randomBytes(16).toString('hex')}`,
    status: 'active',
    currency: input.currency ?? 'USD',
    customerContext: normalContext(input.customerContext),
    contactId: input.contactId ?? null,
    organizationId: input.organizationId ?? null,
    promotionId: null,
    promoCode: null,
    subtotalCents: 0,
    discountCents: 0,
    totalCents: 0,
    version: 1,
    createdAt: now,
    updatedAt: now,
  });
}

/** Inserts a new, empty cart. */
export async function insertCart(
  tx: Queryable,
  tenantId: string,
  input: CreateInput,
  now: Date,
): Promise<CartApi> {
  return presentCart(await insertCartRow(tx, tenantId, input, now), [], null);
}

/** 409 `cart_checked_out`, with the way out: a new cart. */
export const cartCheckedOut = () =>
  new AppError(
    'cart_checked_out',
    'This cart is checked_out: an order was created from it and it can no longer change. Create a new cart.',
    undefined,
    undefined,
    [next('createCart', 'createCart')],
  );

/** The cart, locked for a change; 404 when it is not this tenant's, 409 once checked out. */
export async function openForChange(tx: Queryable, tenantId: string, cartId: string) {
  const cart = await lockCart(tx, tenantId, cartId);
  if (!cart) throw notFound('Cart');
  if (cart.status !== 'active') throw cartCheckedOut();
  return { cart, items: await itemsOf(tx, tenantId, cartId) };
}
