import { AppError, validationFailed } from '../../core/errors.js';
import type { ChargeModel, PriceTier } from './price-engine/index.js';

export interface TierInput {
  upTo: number | null;
  unitPriceCents: number;
  flatPriceCents?: number;
}

/**
 * A charge model's tiers must cover every quantity: flat_fee and per_unit take exactly one
 * unbounded tier; tiered and volume take bounds that strictly increase, the last unbounded.
 */
export function checkTiers(model: ChargeModel, tiers: readonly TierInput[], field: string): PriceTier[] {
  if ((model === 'flat_fee' || model === 'per_unit') && tiers.length !== 1) {
    throw validationFailed(field, 'tiers', `${field} must hold exactly one tier for ${model}`);
  }
  let previous = 0;
  tiers.forEach((tier, i) => {
    const last = i === tiers.length - 1;
    if (last && tier.upTo !== null) {
      throw validationFailed(
        `${field}.${i}.upTo`,
        'tiers',
        `${field}.${i}.upTo must be null: the last tier is unbounded`,
      );
    }
    if (!last && (tier.upTo === null || tier.upTo <= previous)) {
      throw validationFailed(
        `${field}.${i}.upTo`,
        'tiers',
        `${field}.${i}.upTo must be greater than the previous tier's`,
      );
    }
    previous = tier.upTo ?? previous;
  });
  return tiers.map((t) => ({
    upTo: t.upTo,
    unitPriceCents: t.unitPriceCents,
    flatPriceCents: t.flatPriceCents ?? 0,
  }));
}

export interface DiscountInput {
  discountType: 'percent' | 'amount';
  percentOff?: number | null;
  amountOffCents?: number | null;
}

/** A percent discount needs percentOff and no amount; an amount discount the reverse. */
export function checkDiscount(input: DiscountInput): {
  percentOff: number | null;
  amountOffCents: number | null;
} {
  if (input.discountType === 'percent') {
    if (input.percentOff == null)
      throw validationFailed('percentOff', 'required', 'percentOff is required for percent discounts');
    if (input.amountOffCents != null) {
      throw validationFailed(
        'amountOffCents',
        'forbidden',
        'amountOffCents must be null for percent discounts',
      );
    }
    return { percentOff: input.percentOff, amountOffCents: null };
  }
  if (input.amountOffCents == null) {
    throw validationFailed('amountOffCents', 'required', 'amountOffCents is required for amount discounts');
  }
  if (input.percentOff != null)
    throw validationFailed('percentOff', 'forbidden', 'percentOff must be null for amount discounts');
  return { percentOff: null, amountOffCents: input.amountOffCents };
}

export function checkWindow(startsAt: Date, endsAt: Date | null) {
  if (endsAt && endsAt <= startsAt)
    throw validationFailed('endsAt', 'order', 'endsAt must be after startsAt');
}

export interface Reference {
  resource: string;
  id: string;
}

/** 409 listing what still refers to the thing being removed. */
export function stillReferenced(what: string, refs: readonly Reference[]): AppError {
  return new AppError(
    'conflict',
    `${what} is still referred to by ${refs.length} resource(s); remove or change them first`,
    refs.map((r) => ({ field: 'id', rule: 'referenced', message: `${r.resource} ${r.id} refers to it` })),
  );
}

/** A client-chosen id must be free in this tenant (409 otherwise); none given mints a UUIDv7. */
export async function claimId(
  exists: (id: string) => Promise<unknown>,
  requested: string | undefined,
  mint: () => string,
): Promise<string> {
  if (requested === undefined) return mint();
  if (await exists(requested)) {
    throw new AppError('conflict', `id ${requested} is already taken`, [
      { field: 'id', rule: 'unique', message: `id ${requested} is already taken` },
    ]);
  }
  return requested;
}
