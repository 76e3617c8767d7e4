import { AppError } from '../../core/errors.js';
import type { Queryable, Tx } from '../../db/client.js';
import { tenantRepo } from '../../db/tenant-repo.js';
import { storedPromoDiscount } from './promo.js';
import { cartCheckedOut, itemsOf, lockCart, normalContext } from './service.js';
import { carts } from './tables.js';

// The hand-off to orders: a checkout takes the cart as its last acknowledged change left it, under
// the cart's row lock in the order's transaction. A change committed after the checkout read it
// shows as a new version, and the checkout is refused (409) rather than missing that change.

/** A cart as an order takes it: its stored lines, totals and promotion, and its version. */
export interface CheckoutCart {
  id: string;
  version: number;
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

const repo = tenantRepo(carts);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The cart with its stored lines and totals, as priced at its last change: with `lock`, under its
 * row lock (SELECT ... FOR UPDATE, in the order's transaction). 'not_found' (also for an id that
 * is not a UUID) or 'checked_out' otherwise.
 */
export async function readCartForCheckout(
  q: Queryable,
  tenantId: string,
  cartId: string,
  lock: boolean,
): Promise<CheckoutCart | 'not_found' | 'checked_out'> {
  if (!UUID.test(cartId)) return 'not_found';
  const cart = lock ? await lockCart(q, tenantId, cartId) : await repo.get(q, tenantId, cartId);
  if (!cart) return 'not_found';
  if (cart.status === 'checked_out') return 'checked_out';
  const items = await itemsOf(q, tenantId, cartId);
  return {
    id: cart.id,
    version: cart.version,
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

/**
 * In the order's transaction: locks the cart and checks it is still `read` (the version the order
 * was priced from), then marks it checked_out. A cart changed or checked out meanwhile is 409.
 */
export async function checkOutCart(
  tx: Tx,
  tenantId: string,
  read: { id: string; version: number },
  now: Date,
): Promise<void> {
  const locked = await lockCart(tx, tenantId, read.id);
  if (locked?.status !== 'active') throw cartCheckedOut();
  if (locked.version !== read.version)
    throw new AppError(
      'conflict',
      'The cart changed while the order was being made from it; read the cart and create the order again',
    );
  await repo.update(tx, tenantId, read.id, {
    status: 'checked_out',
    version: locked.version + 1,
    updatedAt: now,
  });
}
