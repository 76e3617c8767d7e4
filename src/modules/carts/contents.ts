import { eq } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { notFound } from '../../core/errors.js';
import { checkedSum } from '../../core/money.js';
import type { Queryable } from '../../db/client.js';
import { rowById, rowUpsert } from '../../db/row-statements.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { type Promotion, pricingDataFor } from '../catalog/index.js';
import { priceLinesWith } from '../pricing/index.js';
import { type Line, type PricedValues, valuesOf } from './changes.js';
import { checkPromo, type PromoCheck, type PromoReason, promoState } from './promo.js';
import { MAX_LINE_QUANTITY } from './schemas.js';
import { type CartApi, cartCheckedOut, normalContext, presentCart, sum } from './service.js';
import { type CartRow, cartItems, carts, type ItemRow } from './tables.js';

// A cart set as a whole, for a buyer's agent: what can be bought goes in, what cannot is reported
// per item (an agentic checkout shows it as a message) instead of failing the request.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ContentProblem = 'unknown' | 'inactive' | 'currency' | 'quantity';

export interface CartContents {
  cart: CartApi;
  /** Per requested item (same order): null when it is in the cart. */
  problems: (ContentProblem | null)[];
  /** Products of the cart's lines that ship (physical goods). */
  shipped: Set<string>;
  /** The code asked for: applied, or why not. */
  promo: { code: string; applied: boolean; reason: PromoReason | null } | null;
}

/**
 * Replaces the cart's lines with `items` (one line per product, quantities of repeats added) and
 * its code with `promoCode`, priced now. Items that cannot be bought (unknown, inactive, in another
 * currency, quantity out of range) are left out and named in `problems`; a code that does not apply
 * is kept with no discount (an unknown one is not kept).
 */
export async function setCartContents(
  tx: Queryable,
  tenantId: string,
  target: string | { created: CartRow },
  input: { items: readonly { productId: string; quantity: number }[]; promoCode: string | null },
  now: Date,
): Promise<CartContents> {
  // Its lines are replaced, not read: the cart alone, under its lock (a cart created in this
  // transaction has neither lines to delete nor anyone else to see it).
  const cart = typeof target === 'string' ? await cartRow(tx, tenantId, target, true) : target.created;
  if (!cart) throw notFound('Cart');
  if (cart.status !== 'active') throw cartCheckedOut();
  const candidates = input.items.map((item) =>
    !UUID.test(item.productId) ? null : { productId: item.productId.toLowerCase(), quantity: item.quantity },
  );
  const ids = [...new Set(candidates.flatMap((c) => (c ? [c.productId] : [])))];
  const data = await pricingDataFor(tx, tenantId, ids);
  const products = new Map(data.products.map((p) => [p.id, p]));
  const quantities = new Map<string, number>();
  const problems = candidates.map((c): ContentProblem | null => {
    const product = c && products.get(c.productId);
    if (!c || !product) return 'unknown';
    if (!product.active) return 'inactive';
    if (product.currency !== cart.currency) return 'currency';
    const quantity = (quantities.get(c.productId) ?? 0) + c.quantity;
    if (c.quantity < 1 || quantity > MAX_LINE_QUANTITY) return 'quantity';
    quantities.set(c.productId, quantity);
    return null;
  });
  const lines: Line[] = [...quantities].map(([productId, quantity]) => ({
    row: undefined,
    productId,
    quantity,
  }));
  const context = normalContext(cart.customerContext);
  const priced = priceLinesWith(data, lines, context, now, () => 'quantity');
  const values = priced.map((p, i) => valuesOf(p as NonNullable<typeof p>, (lines[i] as Line).quantity));
  checkedSum(
    values.map((v) => v.listCents),
    'quantity',
  );
  if (typeof target === 'string')
    await tx.delete(cartItems).where(tenantWhere(cartItems, tenantId, eq(cartItems.cartId, cart.id)));
  const { promo, kept } = await promoFor(tx, tenantId, cart.currency, input.promoCode, values, now);
  return {
    cart: await saveContents(tx, cart, lines, values, kept, now),
    problems,
    shipped: new Set([...products.values()].filter((p) => p.requiresShipping).map((p) => p.id)),
    promo,
  };
}

/**
 * Writes the cart's new lines and totals, each row whole with statement text built once (an
 * agentic checkout sets its cart on every change: db/row-statements.ts). As `save` does for a
 * cart change, with the lines known to be new.
 */
async function saveContents(
  tx: Queryable,
  cart: CartRow,
  lines: readonly Line[],
  values: readonly PricedValues[],
  promo: { code: string; promotionId: string; check: PromoCheck } | null,
  now: Date,
): Promise<CartApi> {
  const rows = lines.map(
    (line, i): ItemRow => ({
      ...(values[i] as PricedValues),
      tenantId: cart.tenantId,
      cartId: cart.id,
      id: uuidv7(),
      productId: line.productId,
      createdAt: now,
    }),
  );
  for (const row of rows) await writeItem(tx, row);
  const subtotalCents = sum(rows.map((r) => r.listCents));
  const lineTotalCents = sum(rows.map((r) => r.totalCents));
  const state = promo && promoState(promo.code, promo.promotionId, promo.check);
  const promoDiscount = state?.discountCents ?? 0;
  const updated: CartRow = {
    ...cart,
    promotionId: state?.promotionId ?? null,
    promoCode: state?.code ?? null,
    subtotalCents,
    discountCents: subtotalCents - lineTotalCents + promoDiscount,
    totalCents: Math.max(0, lineTotalCents - promoDiscount),
    version: cart.version + 1,
    updatedAt: now,
  };
  await writeCart(tx, updated);
  return presentCart(updated, rows, state);
}

const cartRow = rowById(carts);
const writeCart = rowUpsert(carts);
const writeItem = rowUpsert(cartItems);

async function promoFor(
  tx: Queryable,
  tenantId: string,
  currency: string,
  code: string | null,
  values: readonly PricedValues[],
  now: Date,
) {
  if (code === null) return { promo: null, kept: null };
  const check = await checkPromo(tx, tenantId, code, sum(values.map((v) => v.totalCents)), currency, now);
  const promo = { code, applied: check.result.ok, reason: check.result.ok ? null : check.result.reason };
  if (!check.promotion) return { promo, kept: null };
  const promotion = check.promotion as Promotion & { id: string };
  return { promo, kept: { code: promotion.code, promotionId: promotion.id, check } };
}
