import { randomBytes } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { promotionByCode } from '../catalog/index.js';
import {
  applyPromotion,
  type ChargeModel,
  type Promotion,
  type PromotionRejection,
} from '../price-engine/index.js';
import { priceLines } from '../pricing/index.js';
import { type CartCreate, type CartSchema, MAX_LINE_QUANTITY } from './schemas.js';
import { type CustomerContext, cartItems, carts } from './tables.js';

// Carts keep no audit entries and emit no events: SPEC.md audits every mutation on orders (and
// lists no cart event types); a cart becomes an auditable fact only when an order is made from it.

export type CartApi = Static<typeof CartSchema>;
type CartRow = typeof carts.$inferSelect;
type ItemRow = typeof cartItems.$inferSelect;
type CreateInput = Static<typeof CartCreate>;

export type PromoReason = PromotionRejection | 'unknown';

export interface PromoState {
  code: string;
  promotionId: string;
  discountCents: number;
  applies: boolean;
  reason: PromoReason | null;
}

const repo = tenantRepo(carts);

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function normalContext(context: CustomerContext | undefined) {
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

async function itemsOf(db: Queryable, tenantId: string, cartId: string): Promise<ItemRow[]> {
  return db
    .select()
    .from(cartItems)
    .where(tenantWhere(cartItems, tenantId, eq(cartItems.cartId, cartId)))
    .orderBy(asc(cartItems.createdAt), asc(cartItems.id));
}

async function lockCart(tx: Queryable, tenantId: string, cartId: string): Promise<CartRow | undefined> {
  const [row] = await tx
    .select()
    .from(carts)
    .where(tenantWhere(carts, tenantId, eq(carts.id, cartId)))
    .for('update');
  return row;
}

/** The promo discount inside the stored totals: what the line totals lose to reach the cart total. */
const storedPromoDiscount = (cart: CartRow, items: readonly ItemRow[]) =>
  cart.promotionId === null ? 0 : Math.max(0, sum(items.map((i) => i.totalCents)) - cart.totalCents);

type PromoCheck =
  | { promotion: Promotion & { id: string }; result: ReturnType<typeof applyPromotion> }
  | { promotion: undefined; result: { ok: false; reason: 'unknown' } };

async function checkPromo(
  db: Queryable,
  tenantId: string,
  code: string,
  amountCents: number,
  currency: string,
  at: Date,
): Promise<PromoCheck> {
  const promotion = await promotionByCode(db, tenantId, code);
  if (!promotion) return { promotion: undefined, result: { ok: false, reason: 'unknown' } };
  return { promotion, result: applyPromotion(promotion, amountCents, currency, at) };
}

function promoState(code: string, promotionId: string, check: PromoCheck): PromoState {
  return check.result.ok
    ? { code, promotionId, discountCents: check.result.discountCents, applies: true, reason: null }
    : { code, promotionId, discountCents: 0, applies: false, reason: check.result.reason };
}

/**
 * The promo as stored. The table keeps the promo's effect (inside the totals) but not why a code
 * does not apply, so that is re-derived: a discount in the totals means it applies; otherwise the
 * check is re-run on the stored line totals at the time of the last change (`updatedAt`), which
 * gives the answer that change got unless an admin has since edited the promotion.
 */
async function storedPromo(
  db: Queryable,
  cart: CartRow,
  items: readonly ItemRow[],
): Promise<PromoState | null> {
  if (cart.promotionId === null || cart.promoCode === null) return null;
  const discountCents = storedPromoDiscount(cart, items);
  if (discountCents > 0) {
    return {
      code: cart.promoCode,
      promotionId: cart.promotionId,
      discountCents,
      applies: true,
      reason: null,
    };
  }
  const check = await checkPromo(
    db,
    cart.tenantId,
    cart.promoCode,
    sum(items.map((i) => i.totalCents)),
    cart.currency,
    cart.updatedAt,
  );
  return { ...promoState(cart.promoCode, cart.promotionId, check), discountCents: 0 };
}

export async function getCart(db: Queryable, tenantId: string, cartId: string): Promise<CartApi | undefined> {
  const cart = await repo.get(db, tenantId, cartId);
  if (!cart) return undefined;
  const items = await itemsOf(db, tenantId, cartId);
  return presentCart(cart, items, await storedPromo(db, cart, items));
}

export async function createCart(
  tx: Queryable,
  tenantId: string,
  input: CreateInput,
  now: Date,
): Promise<CartApi> {
  const cart = await repo.insert(tx, tenantId, {
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
    createdAt: now,
    updatedAt: now,
  });
  return presentCart(cart, [], null);
}

/** The cart, locked for a change; 404 when it is not this tenant's, 409 once checked out. */
async function openForChange(tx: Queryable, tenantId: string, cartId: string) {
  const cart = await lockCart(tx, tenantId, cartId);
  if (!cart) throw notFound('Cart');
  if (cart.status !== 'active') {
    throw new AppError(
      'conflict',
      'This cart is checked_out: an order was created from it and it can no longer change. Create a new cart.',
    );
  }
  return { cart, items: await itemsOf(tx, tenantId, cartId) };
}

/** A line as it will be: an existing row (id set) or a new one. */
interface Line {
  row: ItemRow | undefined;
  productId: string;
  quantity: number;
}

type PricedValues = Omit<ItemRow, 'tenantId' | 'cartId' | 'id' | 'productId' | 'createdAt'>;

/**
 * Prices every line with the cart's customer context, now. A line whose product has since been
 * deleted keeps its last price (there is nothing to price it with); `check` vets the product being
 * added before anything is written.
 */
async function priceCartLines(
  tx: Queryable,
  cart: CartRow,
  lines: readonly Line[],
  now: Date,
  check?: (index: number, found: Awaited<ReturnType<typeof priceLines>>[number]) => void,
): Promise<PricedValues[]> {
  const priced = await priceLines(tx, cart.tenantId, lines, normalContext(cart.customerContext), now);
  return lines.map((line, i) => {
    const p = priced[i];
    check?.(i, p);
    if (!p) {
      if (!line.row) throw new Error('a new cart line must have a product');
      const { tenantId: _t, cartId: _c, id: _i, productId: _p, createdAt: _a, ...kept } = line.row;
      return kept;
    }
    const r = p.resolution;
    return {
      productName: p.product.name,
      productType: p.product.type,
      quantity: line.quantity,
      unitPriceCents: r.unitPriceCents,
      totalCents: r.totalCents,
      listCents: r.subtotalCents,
      charges: r.charges.map((c) => ({
        chargeId: c.chargeId,
        name: c.name,
        kind: c.kind,
        chargeModel: c.chargeModel,
        amountCents: c.amountCents,
      })),
      appliedOffers: r.appliedOffers,
      appliedPriceRules: r.appliedPriceRules,
      requiresQuote: r.requiresQuote,
    };
  });
}

/**
 * Writes re-priced lines and the cart's totals with its promo re-checked on the sum of the line
 * totals (after offers). `promo` is the code to keep (null: none); a code that no longer applies
 * stays on the cart with no discount.
 */
async function save(
  tx: Queryable,
  cart: CartRow,
  lines: readonly Line[],
  values: readonly PricedValues[],
  promo: { code: string; promotionId: string; check: PromoCheck } | null,
  now: Date,
): Promise<CartApi> {
  const tenantId = cart.tenantId;
  const rows: ItemRow[] = [];
  for (const [i, line] of lines.entries()) {
    const v = values[i] as PricedValues;
    if (line.row) {
      const [row] = await tx
        .update(cartItems)
        .set(v)
        .where(tenantWhere(cartItems, tenantId, eq(cartItems.id, line.row.id)))
        .returning();
      rows.push(row as ItemRow);
    } else {
      const [row] = await tx
        .insert(cartItems)
        .values({ ...v, tenantId, cartId: cart.id, id: uuidv7(), productId: line.productId, createdAt: now })
        .returning();
      rows.push(row as ItemRow);
    }
  }
  const subtotalCents = sum(rows.map((r) => r.listCents));
  const lineTotalCents = sum(rows.map((r) => r.totalCents));
  const state = promo && promoState(promo.code, promo.promotionId, promo.check);
  const promoDiscount = state?.discountCents ?? 0;
  const updated = await repo.update(tx, tenantId, cart.id, {
    promotionId: state?.promotionId ?? null,
    promoCode: state?.code ?? null,
    subtotalCents,
    discountCents: subtotalCents - lineTotalCents + promoDiscount,
    totalCents: Math.max(0, lineTotalCents - promoDiscount),
    updatedAt: now,
  });
  return presentCart(updated as CartRow, rows, state);
}

/** Re-checks the cart's current code (if any) against new line totals. */
async function recheckPromo(tx: Queryable, cart: CartRow, values: readonly PricedValues[], now: Date) {
  if (cart.promoCode === null || cart.promotionId === null) return null;
  const check = await checkPromo(
    tx,
    cart.tenantId,
    cart.promoCode,
    sum(values.map((v) => v.totalCents)),
    cart.currency,
    now,
  );
  // A code re-created after a delete is the same code to the buyer: follow it to the new promotion.
  return { code: cart.promoCode, promotionId: check.promotion?.id ?? cart.promotionId, check };
}

const asLines = (items: readonly ItemRow[]): Line[] =>
  items.map((row) => ({ row, productId: row.productId, quantity: row.quantity }));

export async function addItem(
  tx: Queryable,
  tenantId: string,
  cartId: string,
  input: { productId: string; quantity: number },
  now: Date,
): Promise<CartApi> {
  const { cart, items } = await openForChange(tx, tenantId, cartId);
  const lines = asLines(items);
  let index = lines.findIndex((l) => l.productId === input.productId);
  if (index >= 0) {
    const line = lines[index] as Line;
    const quantity = line.quantity + input.quantity;
    if (quantity > MAX_LINE_QUANTITY) {
      throw validationFailed(
        'quantity',
        'maximum',
        `quantity: the product is already in the cart with ${line.quantity}; a line may hold at most ` +
          `${MAX_LINE_QUANTITY} units, so at most ${MAX_LINE_QUANTITY - line.quantity} more can be added`,
      );
    }
    lines[index] = { ...line, quantity };
  } else {
    index = lines.push({ row: undefined, productId: input.productId, quantity: input.quantity }) - 1;
  }
  const values = await priceCartLines(tx, cart, lines, now, (i, found) => {
    if (i !== index) return;
    if (!found) {
      throw validationFailed(
        'productId',
        'exists',
        `productId ${input.productId} is not a product of this tenant`,
      );
    }
    if (!found.product.active) {
      throw validationFailed('productId', 'active', `productId ${input.productId} is not an active product`);
    }
    if (found.product.currency !== cart.currency) {
      throw validationFailed(
        'productId',
        'currency',
        `productId ${input.productId} is priced in ${found.product.currency}; this cart is in ${cart.currency}`,
      );
    }
  });
  return save(tx, cart, lines, values, await recheckPromo(tx, cart, values, now), now);
}

export async function removeItem(
  tx: Queryable,
  tenantId: string,
  cartId: string,
  itemId: string,
  now: Date,
): Promise<CartApi> {
  const { cart, items } = await openForChange(tx, tenantId, cartId);
  if (!items.some((i) => i.id === itemId)) throw notFound('Cart item');
  await tx.delete(cartItems).where(tenantWhere(cartItems, tenantId, eq(cartItems.id, itemId)));
  const lines = asLines(items.filter((i) => i.id !== itemId));
  const values = await priceCartLines(tx, cart, lines, now);
  return save(tx, cart, lines, values, await recheckPromo(tx, cart, values, now), now);
}

const REJECTIONS: Record<PromoReason, (code: string, p: Promotion | undefined, cart: CartRow) => string> = {
  unknown: (code) => `No promotion with code ${code.toUpperCase()} exists`,
  inactive: (code) => `Promotion code ${code} is not active`,
  not_started: (code, p) => `Promotion code ${code} is not valid yet: it starts at ${p && iso(p.startsAt)}`,
  expired: (code, p) => `Promotion code ${code} expired at ${p?.endsAt && iso(p.endsAt)}`,
  exhausted: (code) => `Promotion code ${code} has reached its usage limit`,
  minimum_not_met: (code, p) =>
    `Promotion code ${code} needs a cart total (after offers) of at least ${p?.minSubtotalCents} cents`,
  currency_mismatch: (code, p, cart) =>
    `Promotion code ${code} is an amount in ${p?.currency}; this cart is in ${cart.currency}`,
};

export async function applyPromo(
  tx: Queryable,
  tenantId: string,
  cartId: string,
  code: string,
  now: Date,
): Promise<CartApi> {
  const { cart, items } = await openForChange(tx, tenantId, cartId);
  const lines = asLines(items);
  const values = await priceCartLines(tx, cart, lines, now);
  const check = await checkPromo(
    tx,
    tenantId,
    code,
    sum(values.map((v) => v.totalCents)),
    cart.currency,
    now,
  );
  if (!check.result.ok) {
    const reason = check.result.reason;
    const message = REJECTIONS[reason](check.promotion?.code ?? code, check.promotion, cart);
    throw validationFailed('code', reason, message);
  }
  const promotion = check.promotion as Promotion & { id: string };
  return save(tx, cart, lines, values, { code: promotion.code, promotionId: promotion.id, check }, now);
}

export async function removePromo(
  tx: Queryable,
  tenantId: string,
  cartId: string,
  now: Date,
): Promise<CartApi> {
  const { cart, items } = await openForChange(tx, tenantId, cartId);
  if (cart.promotionId === null) return presentCart(cart, items, null);
  const lines = asLines(items);
  return save(tx, cart, lines, await priceCartLines(tx, cart, lines, now), null, now);
}

// ---- for the orders module -------------------------------------------------------------------

export interface CheckoutCart {
  id: string;
  currency: string;
  customerContext: { segment?: string | null; locale?: string | null; partner?: string | null };
  contactId: string | null;
  organizationId: string | null;
  promotionId: string | null;
  promoCode: string | null;
  /** The applied promo's discount in the stored totals; 0 when the code does not apply. */
  promoDiscountCents: number;
  subtotalCents: number;
  discountCents: number;
  totalCents: number;
  items: {
    productId: string;
    productName: string;
    productType: string;
    quantity: number;
    unitPriceCents: number;
    totalCents: number;
    requiresQuote: boolean;
  }[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Locks the cart row (SELECT ... FOR UPDATE) in `tx` and returns it with its stored lines and
 * totals, as priced at its last change; 'not_found' (also for an id that is not a UUID) or
 * 'checked_out' otherwise.
 */
export async function lockCartForCheckout(
  tx: Queryable,
  tenantId: string,
  cartId: string,
): Promise<CheckoutCart | 'not_found' | 'checked_out'> {
  if (!UUID.test(cartId)) return 'not_found';
  const cart = await lockCart(tx, tenantId, cartId);
  if (!cart) return 'not_found';
  if (cart.status === 'checked_out') return 'checked_out';
  const items = await itemsOf(tx, tenantId, cartId);
  return {
    id: cart.id,
    currency: cart.currency,
    customerContext: normalContext(cart.customerContext),
    contactId: cart.contactId,
    organizationId: cart.organizationId,
    promotionId: cart.promotionId,
    promoCode: cart.promoCode,
    promoDiscountCents: storedPromoDiscount(cart, items),
    subtotalCents: cart.subtotalCents,
    discountCents: cart.discountCents,
    totalCents: cart.totalCents,
    items: items.map((i) => ({
      productId: i.productId,
      productName: i.productName,
      productType: i.productType,
      quantity: i.quantity,
      unitPriceCents: i.unitPriceCents,
      totalCents: i.totalCents,
      requiresQuote: i.requiresQuote,
    })),
  };
}

/** Marks the cart checked_out; call in the transaction that inserts the order. */
export async function markCartCheckedOut(
  tx: Queryable,
  tenantId: string,
  cartId: string,
  now: Date,
): Promise<void> {
  await repo.update(tx, tenantId, cartId, { status: 'checked_out', updatedAt: now });
}
