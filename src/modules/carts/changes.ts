import { eq } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { notFound, validationFailed } from '../../core/errors.js';
import { checkedSum } from '../../core/money.js';
import type { Queryable } from '../../db/client.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { Promotion } from '../catalog/index.js';
import { type PricedLine, priceLines } from '../pricing/index.js';
import { unpublishedProductIds } from '../product-content/index.js';
import { checkPromo, type PromoCheck, promoState, REJECTIONS } from './promo.js';
import { MAX_LINE_QUANTITY } from './schemas.js';
import { type CartApi, normalContext, openForChange, presentCart, sum } from './service.js';
import { type CartRow, cartItems, carts, type ItemRow } from './tables.js';

// A cart change locks the cart row, re-prices every line for the cart's customer context, re-checks
// its promotion code and stores lines and totals (and a new version, which checkout compares).

const repo = tenantRepo(carts);

/** A line as it will be: an existing row (id set) or a new one. */
export interface Line {
  row: ItemRow | undefined;
  productId: string;
  quantity: number;
}

export type PricedValues = Omit<ItemRow, 'tenantId' | 'cartId' | 'id' | 'productId' | 'createdAt'>;

/** A line's stored values from its price as resolved now. */
export function valuesOf(p: PricedLine, quantity: number): PricedValues {
  const r = p.resolution;
  return {
    productName: p.product.name,
    productType: p.product.type,
    quantity,
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
}

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
  const priced = await priceLines(
    tx,
    cart.tenantId,
    lines,
    normalContext(cart.customerContext),
    now,
    () => 'quantity',
  );
  const values = lines.map((line, i): PricedValues => {
    const p = priced[i];
    check?.(i, p);
    if (!p) {
      if (!line.row) throw new Error('a new cart line must have a product');
      const { tenantId: _t, cartId: _c, id: _i, productId: _p, createdAt: _a, ...kept } = line.row;
      return kept;
    }
    return valuesOf(p, line.quantity);
  });
  // The cart's subtotal is the sum of the lines before offers: it must stay an amount we hold.
  checkedSum(
    values.map((v) => v.listCents),
    'quantity',
  );
  return values;
}

/**
 * Writes re-priced lines and the cart's totals with its promo re-checked on the sum of the line
 * totals (after offers). `promo` is the code to keep (null: none); a code that no longer applies
 * stays on the cart with no discount.
 */
export async function save(
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
    version: cart.version + 1,
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
  if ((await unpublishedProductIds(tx, tenantId, [input.productId])).size > 0)
    throw validationFailed(
      'productId',
      'published',
      `productId ${input.productId} is a draft: its content is not published, so it is not offered`,
    );
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
