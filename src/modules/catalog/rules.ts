import { and, eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { uuidv7 } from 'uuidv7';
import { AppError, validationFailed } from '../../core/errors.js';
import { iso, isoOrNull } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { presentedReads, tenantRepo } from '../../db/tenant-repo.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { CrudService } from '../../unit-of-work/index.js';
import { requireKnownPartner } from '../partners/index.js';
import type { Promotion } from './price-engine/index.js';
import type {
  OfferCreate,
  OfferSchema,
  OfferUpdate,
  PriceRuleCreate,
  PriceRuleSchema,
  PriceRuleUpdate,
  PromotionCreate,
  PromotionSchema,
  PromotionUpdate,
} from './schemas.js';
import { offers, priceRules, products, promotions } from './tables.js';
import { checkDiscount, checkTiers, checkWindow, claimId } from './validation.js';

const priceRuleRepo = tenantRepo(priceRules);
const offerRepo = tenantRepo(offers);
const promotionRepo = tenantRepo(promotions);

type PriceRuleApi = Static<typeof PriceRuleSchema>;
type OfferApi = Static<typeof OfferSchema>;
type PromotionApi = Static<typeof PromotionSchema>;

const stamps = (row: { createdAt: Date; updatedAt: Date }) => ({
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});

async function productOf(tx: Queryable, tenantId: string, productId: string, field = 'productId') {
  const [row] = await tx
    .select()
    .from(products)
    .where(tenantWhere(products, tenantId, eq(products.id, productId)));
  if (!row) throw validationFailed(field, 'exists', `${field} ${productId} is not a product of this tenant`);
  return row;
}

// ---- price rules -------------------------------------------------------------------------

function presentPriceRule(row: typeof priceRules.$inferSelect): PriceRuleApi {
  const { tenantId: _t, createdAt: _c, updatedAt: _u, ...rest } = row;
  return { ...rest, ...stamps(row) };
}

/** A price rule replaces a modeled charge of its product, for at least one of segment, locale, partner. */
async function checkPriceRule(
  tx: Queryable,
  tenantId: string,
  rule: {
    productId: string;
    chargeId: string;
    segment: string | null;
    locale: string | null;
    partner: string | null;
  },
) {
  if (rule.segment === null && rule.locale === null && rule.partner === null) {
    throw validationFailed(
      'segment',
      'required',
      'a price rule needs at least one of segment, locale or partner',
    );
  }
  const product = await productOf(tx, tenantId, rule.productId);
  const charge = product.charges.find((c) => c.id === rule.chargeId);
  if (!charge)
    throw validationFailed('chargeId', 'exists', `chargeId ${rule.chargeId} is not a charge of the product`);
  if (charge.kind !== 'modeled')
    throw validationFailed(
      'chargeId',
      'modeled',
      'chargeId is a passthrough charge: it has no price to override',
    );
  return charge;
}

export const priceRuleService: CrudService<
  PriceRuleApi,
  Static<typeof PriceRuleCreate>,
  Static<typeof PriceRuleUpdate>
> = {
  ...presentedReads(priceRuleRepo, presentPriceRule),
  async create(tx, tenantId, input, now) {
    const dims = {
      segment: input.segment ?? null,
      locale: input.locale ?? null,
      partner: input.partner ?? null,
    };
    const charge = await checkPriceRule(tx, tenantId, {
      productId: input.productId,
      chargeId: input.chargeId,
      ...dims,
    });
    const model = input.chargeModel ?? (charge.kind === 'modeled' ? charge.chargeModel : 'per_unit');
    const tiers = checkTiers(model, input.tiers, 'tiers');
    await requireKnownPartner(tx, tenantId, dims.partner);
    const row = await priceRuleRepo.insert(tx, tenantId, {
      id: await claimId((x) => priceRuleRepo.get(tx, tenantId, x), input.id, uuidv7),
      name: input.name,
      productId: input.productId,
      chargeId: input.chargeId,
      ...dims,
      chargeModel: input.chargeModel ?? null,
      tiers,
      createdAt: now,
      updatedAt: now,
    });
    return presentPriceRule(row);
  },
  async update(tx, tenantId, id, patch, now) {
    const before = await priceRuleRepo.get(tx, tenantId, id);
    if (!before) return undefined;
    const merged = { ...before, ...patch };
    const charge = await checkPriceRule(tx, tenantId, merged);
    const model = merged.chargeModel ?? (charge.kind === 'modeled' ? charge.chargeModel : 'per_unit');
    const tiers = checkTiers(model, patch.tiers ?? before.tiers, 'tiers');
    // Only a partner the patch names is checked: a rule kept from before partners existed still saves.
    if (patch.partner !== undefined) await requireKnownPartner(tx, tenantId, patch.partner);
    const after = await priceRuleRepo.update(tx, tenantId, id, { ...patch, tiers, updatedAt: now });
    return after && { before: presentPriceRule(before), after: presentPriceRule(after) };
  },
};

// ---- offers ------------------------------------------------------------------------------

function presentOffer(row: typeof offers.$inferSelect): OfferApi {
  const { tenantId: _t, createdAt: _c, updatedAt: _u, startsAt, endsAt, ...rest } = row;
  return { ...rest, startsAt: iso(startsAt), endsAt: isoOrNull(endsAt), ...stamps(row) };
}

const toDate = (value: string | null | undefined) => (value == null ? null : new Date(value));

export const offerService: CrudService<OfferApi, Static<typeof OfferCreate>, Static<typeof OfferUpdate>> = {
  ...presentedReads(offerRepo, presentOffer),
  async create(tx, tenantId, input, now) {
    await productOf(tx, tenantId, input.productId);
    const startsAt = new Date(input.startsAt);
    const endsAt = toDate(input.endsAt);
    checkWindow(startsAt, endsAt);
    const discount = checkDiscount(input);
    await requireKnownPartner(tx, tenantId, input.partner);
    const row = await offerRepo.insert(tx, tenantId, {
      id: await claimId((x) => offerRepo.get(tx, tenantId, x), input.id, uuidv7),
      name: input.name,
      productId: input.productId,
      discountType: input.discountType,
      ...discount,
      segment: input.segment ?? null,
      partner: input.partner ?? null,
      startsAt,
      endsAt,
      active: input.active ?? true,
      createdAt: now,
      updatedAt: now,
    });
    return presentOffer(row);
  },
  async update(tx, tenantId, id, patch, now) {
    const before = await offerRepo.get(tx, tenantId, id);
    if (!before) return undefined;
    const startsAt = patch.startsAt ? new Date(patch.startsAt) : before.startsAt;
    const endsAt = patch.endsAt === undefined ? before.endsAt : toDate(patch.endsAt);
    checkWindow(startsAt, endsAt);
    const discount = checkDiscount({
      discountType: patch.discountType ?? before.discountType,
      percentOff: patch.percentOff === undefined ? before.percentOff : patch.percentOff,
      amountOffCents: patch.amountOffCents === undefined ? before.amountOffCents : patch.amountOffCents,
    });
    if (patch.partner !== undefined) await requireKnownPartner(tx, tenantId, patch.partner);
    const after = await offerRepo.update(tx, tenantId, id, {
      ...patch,
      ...discount,
      startsAt,
      endsAt,
      updatedAt: now,
    });
    return after && { before: presentOffer(before), after: presentOffer(after) };
  },
};

// ---- promotions --------------------------------------------------------------------------

function presentPromotion(row: typeof promotions.$inferSelect): PromotionApi {
  const { tenantId: _t, createdAt: _c, updatedAt: _u, startsAt, endsAt, ...rest } = row;
  return { ...rest, startsAt: iso(startsAt), endsAt: isoOrNull(endsAt), ...stamps(row) };
}

function checkPromotionCurrency(discountType: 'percent' | 'amount', currency: string | null) {
  if (discountType === 'amount' && currency === null) {
    throw validationFailed('currency', 'required', 'currency is required for amount promotions');
  }
}

async function codeTaken(tx: Queryable, tenantId: string, code: string) {
  const [row] = await tx
    .select({ id: promotions.id })
    .from(promotions)
    .where(tenantWhere(promotions, tenantId, eq(promotions.code, code)));
  return row !== undefined;
}

export const promotionService: CrudService<
  PromotionApi,
  Static<typeof PromotionCreate>,
  Static<typeof PromotionUpdate>
> = {
  ...presentedReads(promotionRepo, presentPromotion),
  async create(tx, tenantId, input, now) {
    const code = input.code.toUpperCase();
    if (await codeTaken(tx, tenantId, code)) {
      throw new AppError('conflict', `promotion code ${code} already exists`, [
        { field: 'code', rule: 'unique', message: `code ${code} already exists in this tenant` },
      ]);
    }
    checkPromotionCurrency(input.discountType, input.currency ?? null);
    const startsAt = input.startsAt ? new Date(input.startsAt) : now;
    const endsAt = toDate(input.endsAt);
    checkWindow(startsAt, endsAt);
    const row = await promotionRepo.insert(tx, tenantId, {
      id: await claimId((x) => promotionRepo.get(tx, tenantId, x), input.id, uuidv7),
      code,
      name: input.name,
      discountType: input.discountType,
      ...checkDiscount(input),
      currency: input.currency ?? null,
      minSubtotalCents: input.minSubtotalCents ?? 0,
      startsAt,
      endsAt,
      usageLimit: input.usageLimit ?? null,
      timesRedeemed: 0,
      active: input.active ?? true,
      createdAt: now,
      updatedAt: now,
    });
    return presentPromotion(row);
  },
  async update(tx, tenantId, id, patch, now) {
    const before = await promotionRepo.get(tx, tenantId, id);
    if (!before) return undefined;
    const discountType = patch.discountType ?? before.discountType;
    checkPromotionCurrency(discountType, patch.currency === undefined ? before.currency : patch.currency);
    const startsAt = patch.startsAt ? new Date(patch.startsAt) : before.startsAt;
    const endsAt = patch.endsAt === undefined ? before.endsAt : toDate(patch.endsAt);
    checkWindow(startsAt, endsAt);
    const discount = checkDiscount({
      discountType,
      percentOff: patch.percentOff === undefined ? before.percentOff : patch.percentOff,
      amountOffCents: patch.amountOffCents === undefined ? before.amountOffCents : patch.amountOffCents,
    });
    const after = await promotionRepo.update(tx, tenantId, id, {
      ...patch,
      ...discount,
      startsAt,
      endsAt,
      updatedAt: now,
    });
    return after && { before: presentPromotion(before), after: presentPromotion(after) };
  },
};

// ---- reads for the pricing engine ----------------------------------------------------------

export async function promotionByCode(
  db: Queryable,
  tenantId: string,
  code: string,
): Promise<(Promotion & { id: string }) | undefined> {
  const [row] = await db
    .select()
    .from(promotions)
    .where(tenantWhere(promotions, tenantId, eq(promotions.code, code.toUpperCase())));
  if (!row) return undefined;
  const { tenantId: _t, createdAt: _c, updatedAt: _u, ...promotion } = row;
  return promotion;
}

/**
 * Counts one use of a promotion, atomically and only while under its usage limit; false when
 * the limit was reached meanwhile. Call in the transaction that creates the order.
 */
export async function redeemPromotion(
  tx: Queryable,
  tenantId: string,
  promotionId: string,
): Promise<boolean> {
  const rows = await tx
    .update(promotions)
    .set({ timesRedeemed: sql`${promotions.timesRedeemed} + 1` })
    .where(
      tenantWhere(
        promotions,
        tenantId,
        and(
          eq(promotions.id, promotionId),
          sql`(${promotions.usageLimit} is null or ${promotions.timesRedeemed} < ${promotions.usageLimit})`,
        ),
      ),
    )
    .returning({ id: promotions.id });
  return rows.length > 0;
}
