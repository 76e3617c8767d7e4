import { iso } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import {
  applyPromotion,
  type Promotion,
  type PromotionRejection,
  promotionByCode,
} from '../catalog/index.js';
import type { CartRow, ItemRow } from './tables.js';

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

export type PromoReason = PromotionRejection | 'unknown';

export interface PromoState {
  code: string;
  promotionId: string;
  discountCents: number;
  applies: boolean;
  reason: PromoReason | null;
}

/** The promo discount inside the stored totals: what the line totals lose to reach the cart total. */
export const storedPromoDiscount = (cart: CartRow, items: readonly ItemRow[]) =>
  cart.promotionId === null ? 0 : Math.max(0, sum(items.map((i) => i.totalCents)) - cart.totalCents);

export type PromoCheck =
  | { promotion: Promotion & { id: string }; result: ReturnType<typeof applyPromotion> }
  | { promotion: undefined; result: { ok: false; reason: 'unknown' } };

export async function checkPromo(
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

export function promoState(code: string, promotionId: string, check: PromoCheck): PromoState {
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
export async function storedPromo(
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
export const REJECTIONS: Record<
  PromoReason,
  (code: string, p: Promotion | undefined, cart: CartRow) => string
> = {
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
