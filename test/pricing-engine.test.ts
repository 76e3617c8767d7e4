import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  activeOffers,
  applyDiscounts,
  applyPromotion,
  type Charge,
  type ChargeModel,
  chargeTotal,
  type Discount,
  type Offer,
  type PlanChangeRule,
  type PlanSide,
  type PriceRule,
  type PriceTier,
  type PricingContext,
  type Promotion,
  percentOf,
  planDirection,
  resolvePrice,
  selectPlanChangeRule,
  selectPriceRule,
} from '../src/modules/catalog/index.js';

// ---------------------------------------------------------------------------------------------
// Builders and arbitraries
// ---------------------------------------------------------------------------------------------

const tier = (upTo: number | null, unitPriceCents: number, flatPriceCents = 0): PriceTier => ({
  upTo,
  unitPriceCents,
  flatPriceCents,
});

const priceArb = fc.integer({ min: 0, max: 100_000 });
const quantityArb = fc.integer({ min: 0, max: 5_000 });

/** 1..5 tiers with strictly increasing positive `upTo` bounds and a last, unbounded tier. */
const tiersArb: fc.Arbitrary<PriceTier[]> = fc
  .uniqueArray(fc.integer({ min: 1, max: 2_000 }), { minLength: 0, maxLength: 4 })
  .chain((bounds) => {
    const sorted = [...bounds].sort((a, b) => a - b);
    const upTos: (number | null)[] = [...sorted, null];
    return fc.tuple(
      ...upTos.map((upTo) =>
        fc.record({ upTo: fc.constant(upTo), unitPriceCents: priceArb, flatPriceCents: priceArb }),
      ),
    );
  });

/** Like tiersArb, with non-increasing unit prices across tiers and no flat fees. */
const decreasingTiersArb: fc.Arbitrary<PriceTier[]> = tiersArb.chain((tiers) =>
  fc
    .array(priceArb, { minLength: tiers.length, maxLength: tiers.length })
    .map((prices) => [...prices].sort((a, b) => b - a))
    .map((prices) =>
      tiers.map((t, i) => ({ upTo: t.upTo, unitPriceCents: prices[i] ?? 0, flatPriceCents: 0 })),
    ),
);

const discountArb: fc.Arbitrary<Discount> = fc.oneof(
  fc.record({
    id: fc.string({ minLength: 1, maxLength: 4 }),
    name: fc.constant('percent'),
    discountType: fc.constant('percent' as const),
    percentOff: fc.integer({ min: 0, max: 150 }),
    amountOffCents: fc.constant(null),
  }),
  fc.record({
    id: fc.string({ minLength: 1, maxLength: 4 }),
    name: fc.constant('amount'),
    discountType: fc.constant('amount' as const),
    percentOff: fc.constant(null),
    amountOffCents: fc.integer({ min: 0, max: 200_000 }),
  }),
);

/** Discounts with pairwise distinct ids (so their relative order is fully determined). */
const discountsArb = fc.uniqueArray(discountArb, { maxLength: 6, selector: (d) => d.id });

const T0 = new Date('2025-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

let seq = 0;
const rule = (over: Partial<PriceRule>): PriceRule => ({
  id: `rule-${++seq}`,
  name: 'rule',
  productId: 'p1',
  chargeId: 'c1',
  segment: null,
  locale: null,
  partner: null,
  chargeModel: null,
  tiers: [tier(null, 1)],
  createdAt: T0,
  ...over,
});

const offer = (over: Partial<Offer>): Offer => ({
  id: `offer-${++seq}`,
  name: 'offer',
  productId: 'p1',
  discountType: 'percent',
  percentOff: 10,
  amountOffCents: null,
  segment: null,
  partner: null,
  startsAt: T0,
  endsAt: null,
  active: true,
  ...over,
});

const promotion = (over: Partial<Promotion>): Promotion => ({
  id: 'promo-1',
  name: 'promo',
  code: 'SAVE',
  discountType: 'amount',
  percentOff: null,
  amountOffCents: 500,
  currency: 'USD',
  minSubtotalCents: 0,
  startsAt: T0,
  endsAt: at(1_000),
  usageLimit: null,
  timesRedeemed: 0,
  active: true,
  ...over,
});

const modeled = (id: string, chargeModel: ChargeModel, tiers: PriceTier[]): Charge => ({
  id,
  name: id,
  kind: 'modeled',
  chargeModel,
  tiers,
});

const MODELS: ChargeModel[] = ['flat_fee', 'per_unit', 'tiered', 'volume'];

// ---------------------------------------------------------------------------------------------
// 1. chargeTotal
// ---------------------------------------------------------------------------------------------

describe('chargeTotal', () => {
  it('is a non-negative integer for every model with non-negative prices', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODELS), tiersArb, quantityArb, (model, tiers, q) => {
        const total = chargeTotal(model, tiers, q);
        expect(Number.isInteger(total)).toBe(true);
        expect(total).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('is 0 without tiers', () => {
    for (const model of MODELS) expect(chargeTotal(model, [], 7)).toBe(0);
  });

  it.each(['flat_fee', 'per_unit', 'tiered'] as const)(
    'is monotonic non-decreasing in quantity for %s',
    (model) => {
      fc.assert(
        fc.property(tiersArb, quantityArb, fc.integer({ min: 0, max: 3_000 }), (tiers, q, extra) => {
          expect(chargeTotal(model, tiers, q + extra)).toBeGreaterThanOrEqual(chargeTotal(model, tiers, q));
        }),
      );
    },
  );

  it('flat_fee is the first tier flat price whatever the quantity', () => {
    fc.assert(
      fc.property(tiersArb, quantityArb, (tiers, q) => {
        expect(chargeTotal('flat_fee', tiers, q)).toBe(tiers[0]?.flatPriceCents);
      }),
    );
  });

  it('per_unit total is exactly q * unit + flat (of the first tier)', () => {
    fc.assert(
      fc.property(priceArb, priceArb, quantityArb, (unit, flat, q) => {
        expect(chargeTotal('per_unit', [tier(null, unit, flat)], q)).toBe(q * unit + flat);
      }),
    );
  });

  it('tiered with a single unbounded tier equals per_unit (q >= 1)', () => {
    fc.assert(
      fc.property(priceArb, priceArb, fc.integer({ min: 1, max: 5_000 }), (unit, flat, q) => {
        const tiers = [tier(null, unit, flat)];
        expect(chargeTotal('tiered', tiers, q)).toBe(chargeTotal('per_unit', tiers, q));
      }),
    );
  });

  it('tiered at quantity 0 is 0 (no tier touched, so no flat fee), unlike per_unit and volume', () => {
    const tiers = [tier(null, 100, 500)];
    expect(chargeTotal('tiered', tiers, 0)).toBe(0);
    expect(chargeTotal('per_unit', tiers, 0)).toBe(500);
    expect(chargeTotal('volume', tiers, 0)).toBe(500);
  });

  it('volume with a single unbounded tier equals per_unit', () => {
    fc.assert(
      fc.property(priceArb, priceArb, quantityArb, (unit, flat, q) => {
        const tiers = [tier(null, unit, flat)];
        expect(chargeTotal('volume', tiers, q)).toBe(chargeTotal('per_unit', tiers, q));
      }),
    );
  });

  const EXAMPLE = [tier(10, 100, 0), tier(null, 80, 500)];

  it.each([
    // q, tiered (graduated), volume
    [0, 0, 0],
    [1, 100, 100],
    [10, 1_000, 1_000],
    [11, 10 * 100 + 1 * 80 + 500, 11 * 80 + 500],
    [25, 10 * 100 + 15 * 80 + 500, 25 * 80 + 500],
  ])('fixed example at q=%i: tiered %i, volume %i', (q, tieredTotal, volumeTotal) => {
    expect(chargeTotal('tiered', EXAMPLE, q)).toBe(tieredTotal);
    expect(chargeTotal('volume', EXAMPLE, q)).toBe(volumeTotal);
  });

  it.each([
    // three tiers with flats: units 1-5 @200, 6-20 @150 (+100), 21+ @100 (+300)
    [5, 5 * 200, 5 * 200],
    [6, 5 * 200 + 150 + 100, 6 * 150 + 100],
    [20, 5 * 200 + 15 * 150 + 100, 20 * 150 + 100],
    [21, 5 * 200 + 15 * 150 + 100 + 100 + 300, 21 * 100 + 300],
    [100, 5 * 200 + 15 * 150 + 100 + 80 * 100 + 300, 100 * 100 + 300],
  ])('three-tier example at q=%i: tiered %i, volume %i', (q, tieredTotal, volumeTotal) => {
    const tiers = [tier(5, 200), tier(20, 150, 100), tier(null, 100, 300)];
    expect(chargeTotal('tiered', tiers, q)).toBe(tieredTotal);
    expect(chargeTotal('volume', tiers, q)).toBe(volumeTotal);
  });

  it('volume is not monotonic: crossing into a cheaper tier can lower the total (tiered never does)', () => {
    const tiers = [tier(10, 100), tier(null, 50)];
    expect(chargeTotal('volume', tiers, 10)).toBe(1_000);
    expect(chargeTotal('volume', tiers, 11)).toBe(550);
    expect(chargeTotal('volume', tiers, 11)).toBeLessThan(chargeTotal('volume', tiers, 10));
    expect(chargeTotal('tiered', tiers, 10)).toBe(1_000);
    expect(chargeTotal('tiered', tiers, 11)).toBe(1_050);
    for (let q = 0; q < 50; q++) {
      expect(chargeTotal('tiered', tiers, q + 1)).toBeGreaterThanOrEqual(chargeTotal('tiered', tiers, q));
    }
  });

  it('tiered >= volume when unit prices are non-increasing across tiers and flats are 0', () => {
    fc.assert(
      fc.property(decreasingTiersArb, quantityArb, (tiers, q) => {
        expect(chargeTotal('tiered', tiers, q)).toBeGreaterThanOrEqual(chargeTotal('volume', tiers, q));
      }),
    );
  });

  it('tiered and volume agree inside the first tier', () => {
    fc.assert(
      fc.property(tiersArb, quantityArb, (tiers, q) => {
        const first = tiers[0] as PriceTier;
        fc.pre(q >= 1 && (first.upTo === null || q <= first.upTo));
        expect(chargeTotal('tiered', tiers, q)).toBe(chargeTotal('volume', tiers, q));
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 2. percentOf
// ---------------------------------------------------------------------------------------------

describe('percentOf', () => {
  it.each([
    [5, 50, 3],
    [1, 49, 0],
    [1, 50, 1],
    [1, 51, 1],
    [3, 50, 2],
    [1_000, 10, 100],
    [999, 15, 150], // 149.85 -> 150
    [333, 15, 50], // 49.95 -> 50
    [0, 50, 0],
    [1_234, 0, 0],
    [1_234, 100, 1_234],
  ])('percentOf(%i, %i) = %i (half up)', (amount, percent, expected) => {
    expect(percentOf(amount, percent)).toBe(expected);
  });

  it('is an integer between 0 and the amount for percent in 0..100', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 0, max: 100 }),
        (amount, pct) => {
          const r = percentOf(amount, pct);
          expect(Number.isInteger(r)).toBe(true);
          expect(r).toBeGreaterThanOrEqual(0);
          expect(r).toBeLessThanOrEqual(amount);
        },
      ),
    );
  });

  it('is within half a cent of the exact value, rounding exact halves up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 0, max: 100 }),
        (amount, pct) => {
          const r = percentOf(amount, pct);
          // 100 * |r - amount * pct / 100| <= 50, and exact halves go up: -50 < 100r - amount*pct <= 50.
          const diff = 100 * r - amount * pct;
          expect(diff).toBeGreaterThan(-50);
          expect(diff).toBeLessThanOrEqual(50);
        },
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 3. applyDiscounts
// ---------------------------------------------------------------------------------------------

const pct = (id: string, percentOff: number): Discount => ({
  id,
  name: id,
  discountType: 'percent',
  percentOff,
  amountOffCents: null,
});
const amt = (id: string, amountOffCents: number): Discount => ({
  id,
  name: id,
  discountType: 'amount',
  percentOff: null,
  amountOffCents,
});

describe('applyDiscounts', () => {
  it('total is a non-negative integer, applied discounts are non-negative and sum to amount - total', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), discountsArb, (amount, discounts) => {
        const { totalCents, applied } = applyDiscounts(amount, discounts);
        expect(Number.isInteger(totalCents)).toBe(true);
        expect(totalCents).toBeGreaterThanOrEqual(0);
        expect(totalCents).toBeLessThanOrEqual(amount);
        expect(applied).toHaveLength(discounts.length);
        for (const a of applied) {
          expect(Number.isInteger(a.discountCents)).toBe(true);
          expect(a.discountCents).toBeGreaterThanOrEqual(0);
        }
        expect(applied.reduce((s, a) => s + a.discountCents, 0)).toBe(amount - totalCents);
      }),
    );
  });

  it('caps amount-offs that exceed the amount', () => {
    const { totalCents, applied } = applyDiscounts(300, [amt('a', 200), amt('b', 250)]);
    expect(totalCents).toBe(0);
    expect(applied).toEqual([
      { id: 'b', name: 'b', discountCents: 250 },
      { id: 'a', name: 'a', discountCents: 50 },
    ]);
  });

  it('caps a percent over 100 at the amount and ignores negative discounts', () => {
    expect(applyDiscounts(1_000, [pct('p', 150)]).totalCents).toBe(0);
    expect(applyDiscounts(1_000, [pct('p', -10), amt('a', -50)])).toEqual({
      totalCents: 1_000,
      applied: [
        { id: 'p', name: 'p', discountCents: 0 },
        { id: 'a', name: 'a', discountCents: 0 },
      ],
    });
  });

  it.each([
    ['amount listed first', [amt('a', 100), pct('p', 10)]],
    ['percent listed first', [pct('p', 10), amt('a', 100)]],
  ])('applies percent before amount (%s): 1000 -> 900 -> 800, not 810', (_label, discounts) => {
    const { totalCents, applied } = applyDiscounts(1_000, discounts);
    expect(totalCents).toBe(800);
    expect(applied).toEqual([
      { id: 'p', name: 'p', discountCents: 100 },
      { id: 'a', name: 'a', discountCents: 100 },
    ]);
  });

  it('applies the larger percent first, each on the running amount', () => {
    // 1000 -> 25% of 1000 = 250 -> 750 -> 10% of 750 = 75 -> 675
    const { totalCents, applied } = applyDiscounts(1_000, [pct('small', 10), pct('big', 25)]);
    expect(totalCents).toBe(675);
    expect(applied.map((a) => [a.id, a.discountCents])).toEqual([
      ['big', 250],
      ['small', 75],
    ]);
  });

  it('result does not depend on the input order of discounts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        discountsArb.chain((ds) =>
          fc.tuple(fc.constant(ds), fc.shuffledSubarray(ds, { minLength: ds.length, maxLength: ds.length })),
        ),
        (amount, [discounts, shuffled]) => {
          expect(applyDiscounts(amount, shuffled)).toEqual(applyDiscounts(amount, discounts));
        },
      ),
    );
  });

  it('does not mutate its input', () => {
    const discounts = [amt('a', 100), pct('p', 10)];
    const copy = structuredClone(discounts);
    applyDiscounts(1_000, discounts);
    expect(discounts).toEqual(copy);
  });
});

// ---------------------------------------------------------------------------------------------
// 4. selectPriceRule
// ---------------------------------------------------------------------------------------------

describe('selectPriceRule', () => {
  const ctx: PricingContext = { partner: 'acme', segment: 'smb', locale: 'de-DE' };

  it('matches only when every dimension the rule sets equals the context', () => {
    const global = rule({ id: 'global' });
    const wrongSegment = rule({ id: 'wrong-seg', segment: 'enterprise', partner: 'acme' });
    expect(selectPriceRule([global, wrongSegment], 'c1', ctx)?.id).toBe('global');
    // A dimension set on the rule but absent from the context does not match.
    const seg = rule({ id: 'seg', segment: 'smb' });
    expect(selectPriceRule([seg], 'c1', {})).toBeUndefined();
    expect(selectPriceRule([seg], 'c1', { segment: null })).toBeUndefined();
    expect(selectPriceRule([seg, global], 'c1', { partner: 'acme' })?.id).toBe('global');
  });

  it.each([
    ['more dimensions wins', [{ partner: 'acme' }, { segment: 'smb', locale: 'de-DE' }], 1],
    ['partner beats segment', [{ segment: 'smb' }, { partner: 'acme' }], 1],
    ['segment beats locale', [{ locale: 'de-DE' }, { segment: 'smb' }], 1],
    ['partner beats locale', [{ locale: 'de-DE' }, { partner: 'acme' }], 1],
    ['any dimension beats none', [{}, { locale: 'de-DE' }], 1],
    [
      '{partner,segment} beats {partner,locale}',
      [
        { partner: 'acme', locale: 'de-DE' },
        { partner: 'acme', segment: 'smb' },
      ],
      1,
    ],
    [
      '{partner,locale} beats {segment,locale}',
      [
        { segment: 'smb', locale: 'de-DE' },
        { partner: 'acme', locale: 'de-DE' },
      ],
      1,
    ],
    [
      'all three beats any two',
      [
        { partner: 'acme', segment: 'smb' },
        { partner: 'acme', segment: 'smb', locale: 'de-DE' },
      ],
      1,
    ],
  ] as [string, Partial<PriceRule>[], number][])('%s', (_label, overrides, winner) => {
    const rules = overrides.map((o, i) => rule({ id: `r${i}`, ...o }));
    expect(selectPriceRule(rules, 'c1', ctx)?.id).toBe(`r${winner}`);
    // Input order does not matter.
    expect(selectPriceRule([...rules].reverse(), 'c1', ctx)?.id).toBe(`r${winner}`);
  });

  it('at a full tie the newest createdAt wins, in any input order', () => {
    const older = rule({ id: 'older', segment: 'smb', createdAt: at(0) });
    const newer = rule({ id: 'newer', segment: 'smb', createdAt: at(1) });
    expect(selectPriceRule([older, newer], 'c1', ctx)?.id).toBe('newer');
    expect(selectPriceRule([newer, older], 'c1', ctx)?.id).toBe('newer');
  });

  it('specificity beats recency', () => {
    const newerLessSpecific = rule({ id: 'new', locale: 'de-DE', createdAt: at(10_000) });
    const olderMoreSpecific = rule({ id: 'old', segment: 'smb', createdAt: at(0) });
    expect(selectPriceRule([olderMoreSpecific, newerLessSpecific], 'c1', ctx)?.id).toBe('old');
  });

  it('ignores rules for another charge', () => {
    const other = rule({ id: 'other', chargeId: 'c2', partner: 'acme', segment: 'smb', locale: 'de-DE' });
    const mine = rule({ id: 'mine' });
    expect(selectPriceRule([other, mine], 'c1', ctx)?.id).toBe('mine');
    expect(selectPriceRule([other], 'c1', ctx)).toBeUndefined();
  });

  it('returns undefined without a match', () => {
    expect(selectPriceRule([], 'c1', ctx)).toBeUndefined();
    expect(selectPriceRule([rule({ partner: 'globex' })], 'c1', ctx)).toBeUndefined();
  });

  it('the selected rule is independent of input order and always matches', () => {
    const dim = (vals: string[]) => fc.option(fc.constantFrom(...vals), { nil: null });
    const ruleArb = fc.record({
      segment: dim(['smb', 'enterprise']),
      locale: dim(['de-DE', 'en-US']),
      partner: dim(['acme', 'globex']),
      chargeId: fc.constantFrom('c1', 'c2'),
      createdAt: fc.integer({ min: 0, max: 5 }).map(at),
    });
    const rulesArb = fc
      .array(ruleArb, { maxLength: 8 })
      .map((rs) => rs.map((r, i) => rule({ ...r, id: `r${i}` })))
      .chain((rs) =>
        fc.tuple(fc.constant(rs), fc.shuffledSubarray(rs, { minLength: rs.length, maxLength: rs.length })),
      );
    fc.assert(
      fc.property(rulesArb, ([rules, shuffled]) => {
        const picked = selectPriceRule(rules, 'c1', ctx);
        expect(selectPriceRule(shuffled, 'c1', ctx)?.id).toBe(picked?.id);
        if (picked) {
          expect(picked.chargeId).toBe('c1');
          for (const d of ['segment', 'locale', 'partner'] as const) {
            expect(picked[d] === null || picked[d] === ctx[d]).toBe(true);
          }
        }
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 5. activeOffers
// ---------------------------------------------------------------------------------------------

describe('activeOffers', () => {
  const ids = (offers: Offer[]) => offers.map((o) => o.id);

  it('window start is inclusive, end exclusive, null end is open', () => {
    const windowed = offer({ id: 'w', startsAt: at(100), endsAt: at(200) });
    const open = offer({ id: 'open', startsAt: at(100), endsAt: null });
    const both = [windowed, open];
    expect(ids(activeOffers(both, 'p1', {}, at(99)))).toEqual([]);
    expect(ids(activeOffers(both, 'p1', {}, at(100)))).toEqual(['w', 'open']);
    expect(ids(activeOffers(both, 'p1', {}, at(199)))).toEqual(['w', 'open']);
    expect(ids(activeOffers(both, 'p1', {}, at(200)))).toEqual(['open']);
    expect(ids(activeOffers(both, 'p1', {}, at(10 ** 12)))).toEqual(['open']);
  });

  it('ignores inactive offers and offers of other products', () => {
    const offers = [
      offer({ id: 'off', active: false }),
      offer({ id: 'other', productId: 'p2' }),
      offer({ id: 'on' }),
    ];
    expect(ids(activeOffers(offers, 'p1', {}, at(1)))).toEqual(['on']);
  });

  it.each([
    [{}, ['any']],
    [{ segment: 'smb' }, ['any', 'smb']],
    [{ partner: 'acme' }, ['any', 'acme']],
    [{ segment: 'smb', partner: 'acme' }, ['any', 'smb', 'acme', 'smb+acme']],
    [{ segment: 'enterprise', partner: 'acme' }, ['any', 'acme']],
    [{ segment: null, partner: null }, ['any']],
  ] as [PricingContext, string[]][])('segment/partner restrictions for context %o', (context, expected) => {
    const offers = [
      offer({ id: 'any' }),
      offer({ id: 'smb', segment: 'smb' }),
      offer({ id: 'acme', partner: 'acme' }),
      offer({ id: 'smb+acme', segment: 'smb', partner: 'acme' }),
    ];
    expect(ids(activeOffers(offers, 'p1', context, at(1)))).toEqual(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// 6. resolvePrice
// ---------------------------------------------------------------------------------------------

describe('resolvePrice', () => {
  const resolve = (over: Partial<Parameters<typeof resolvePrice>[0]>) =>
    resolvePrice({
      product: { id: 'p1', currency: 'USD', charges: [] },
      quantity: 1,
      context: {},
      rules: [],
      offers: [],
      now: at(1),
      ...over,
    });

  it('per_unit charges without flat fee scale linearly: total(q) == q * total(1)', () => {
    fc.assert(
      fc.property(
        fc.array(priceArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 10_000 }),
        (units, q) => {
          const product = {
            id: 'p1',
            currency: 'USD',
            charges: units.map((u, i) => modeled(`c${i}`, 'per_unit', [tier(null, u)])),
          };
          const one = resolve({ product, quantity: 1 });
          const many = resolve({ product, quantity: q });
          expect(many.totalCents).toBe(q * one.totalCents);
          expect(many.subtotalCents).toBe(q * one.subtotalCents);
          expect(many.unitPriceCents).toBe(one.totalCents);
          expect(many.quantity).toBe(q);
        },
      ),
    );
  });

  it('passthrough charges set requiresQuote and contribute nothing', () => {
    const product = {
      id: 'p1',
      currency: 'USD',
      charges: [
        modeled('c1', 'per_unit', [tier(null, 250)]),
        { id: 'pt', name: 'usage', kind: 'passthrough' as const },
      ],
    };
    const r = resolve({ product, quantity: 4 });
    expect(r.requiresQuote).toBe(true);
    expect(r.basePriceCents).toBe(1_000);
    expect(r.subtotalCents).toBe(1_000);
    expect(r.totalCents).toBe(1_000);
    expect(r.charges[1]).toEqual({
      chargeId: 'pt',
      name: 'usage',
      kind: 'passthrough',
      chargeModel: null,
      tiers: [],
      listCents: null,
      amountCents: null,
      priceRuleId: null,
    });
    const modeledOnly = resolve({
      product: { ...product, charges: [product.charges[0] as Charge] },
      quantity: 4,
    });
    expect(modeledOnly.requiresQuote).toBe(false);
  });

  it('basePriceCents ignores price rules while subtotalCents uses them', () => {
    const product = {
      id: 'p1',
      currency: 'USD',
      charges: [
        modeled('c1', 'per_unit', [tier(null, 1_000)]),
        modeled('c2', 'flat_fee', [tier(null, 0, 500)]),
      ],
    };
    const rules = [
      rule({
        id: 'partner-volume',
        chargeId: 'c1',
        partner: 'acme',
        chargeModel: 'volume',
        tiers: [tier(5, 900), tier(null, 700)],
      }),
      rule({ id: 'other-product', productId: 'p2', chargeId: 'c2', tiers: [tier(null, 0, 1)] }),
    ];
    const r = resolve({ product, quantity: 10, context: { partner: 'acme' }, rules });
    expect(r.basePriceCents).toBe(10 * 1_000 + 500);
    expect(r.subtotalCents).toBe(10 * 700 + 500);
    expect(r.appliedPriceRules).toEqual([{ id: 'partner-volume', name: 'rule', chargeId: 'c1' }]);
    expect(r.charges[0]).toMatchObject({
      chargeModel: 'volume',
      listCents: 10_000,
      amountCents: 7_000,
      priceRuleId: 'partner-volume',
    });
    expect(r.charges[1]).toMatchObject({
      chargeModel: 'flat_fee',
      listCents: 500,
      amountCents: 500,
      priceRuleId: null,
    });

    // Without the partner the rule does not match.
    const plain = resolve({ product, quantity: 10, rules });
    expect(plain.subtotalCents).toBe(plain.basePriceCents);
    expect(plain.appliedPriceRules).toEqual([]);
  });

  it('a rule without chargeModel keeps the charge model and replaces the tiers', () => {
    const product = { id: 'p1', currency: 'USD', charges: [modeled('c1', 'per_unit', [tier(null, 1_000)])] };
    const r = resolve({
      product,
      quantity: 3,
      rules: [rule({ chargeModel: null, tiers: [tier(null, 800)] })],
    });
    expect(r.charges[0]?.chargeModel).toBe('per_unit');
    expect(r.subtotalCents).toBe(2_400);
    expect(r.basePriceCents).toBe(3_000);
  });

  it('applies offers in the documented order on the subtotal', () => {
    const product = { id: 'p1', currency: 'USD', charges: [modeled('c1', 'per_unit', [tier(null, 1_000)])] };
    const offers = [
      offer({ id: 'amount', discountType: 'amount', percentOff: null, amountOffCents: 100 }),
      offer({ id: 'percent', percentOff: 10 }),
      offer({ id: 'expired', percentOff: 50, endsAt: at(1) }),
    ];
    const r = resolve({ product, quantity: 1, offers });
    expect(r.appliedOffers).toEqual([
      { id: 'percent', name: 'offer', discountCents: 100 },
      { id: 'amount', name: 'offer', discountCents: 100 },
    ]);
    expect(r.totalCents).toBe(800);
    expect(r.discountCents).toBe(200);
  });

  it('with arbitrary offers: never negative, discount == subtotal - total, unit price == floor(total / q)', () => {
    const offerArb = fc.record({
      discountType: fc.constantFrom('percent' as const, 'amount' as const),
      percentOff: fc.option(fc.integer({ min: -50, max: 200 }), { nil: null }),
      amountOffCents: fc.option(fc.integer({ min: -1_000, max: 1_000_000 }), { nil: null }),
      segment: fc.option(fc.constantFrom('smb', 'enterprise'), { nil: null }),
      partner: fc.option(fc.constantFrom('acme'), { nil: null }),
      startsAt: fc.integer({ min: 0, max: 10 }).map(at),
      endsAt: fc.option(fc.integer({ min: 0, max: 10 }).map(at), { nil: null }),
      active: fc.boolean(),
    });
    const chargeArb = fc.tuple(fc.constantFrom(...MODELS), tiersArb);
    fc.assert(
      fc.property(
        fc.array(chargeArb, { minLength: 1, maxLength: 3 }),
        fc.array(offerArb, { maxLength: 5 }),
        fc.integer({ min: 1, max: 2_000 }),
        fc.record({ segment: fc.constantFrom('smb', null), partner: fc.constantFrom('acme', null) }),
        (charges, offerOverrides, quantity, context) => {
          const product = {
            id: 'p1',
            currency: 'USD',
            charges: charges.map(([model, tiers], i) => modeled(`c${i}`, model, tiers)),
          };
          const offers = offerOverrides.map((o, i) => offer({ ...o, id: `o${i}` }));
          const r = resolve({ product, quantity, context, offers, now: at(5) });
          expect(r.totalCents).toBeGreaterThanOrEqual(0);
          expect(Number.isInteger(r.totalCents)).toBe(true);
          expect(r.totalCents).toBeLessThanOrEqual(r.subtotalCents);
          expect(r.discountCents).toBe(r.subtotalCents - r.totalCents);
          expect(r.appliedOffers.reduce((s, a) => s + a.discountCents, 0)).toBe(r.discountCents);
          expect(r.unitPriceCents).toBe(Math.floor(r.totalCents / quantity));
          // No rules: list and rule-adjusted prices agree.
          expect(r.basePriceCents).toBe(r.subtotalCents);
          expect(r.subtotalCents).toBe(
            product.charges.reduce(
              (s, c) => s + (c.kind === 'modeled' ? chargeTotal(c.chargeModel, c.tiers, quantity) : 0),
              0,
            ),
          );
        },
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 7. applyPromotion
// ---------------------------------------------------------------------------------------------

describe('applyPromotion', () => {
  it.each([
    ['inactive', promotion({ active: false }), at(500), 'inactive'],
    ['before start', promotion({ startsAt: at(100) }), at(99), 'not_started'],
    ['at end (exclusive)', promotion({ endsAt: at(1_000) }), at(1_000), 'expired'],
    ['after end', promotion({ endsAt: at(1_000) }), at(5_000), 'expired'],
    ['usage limit reached', promotion({ usageLimit: 3, timesRedeemed: 3 }), at(500), 'exhausted'],
    ['usage limit 0', promotion({ usageLimit: 0 }), at(500), 'exhausted'],
    ['minimum not met', promotion({ minSubtotalCents: 10_001 }), at(500), 'minimum_not_met'],
    ['amount in another currency', promotion({ currency: 'EUR' }), at(500), 'currency_mismatch'],
  ] as [string, Promotion, Date, string][])('rejects: %s', (_label, promo, now, reason) => {
    expect(applyPromotion(promo, 10_000, 'USD', now)).toEqual({ ok: false, reason });
  });

  it.each([
    ['at start (inclusive)', promotion({ startsAt: at(100) }), at(100)],
    ['just before end', promotion({ endsAt: at(1_000) }), at(999)],
    ['open-ended', promotion({ endsAt: null }), at(10 ** 12)],
    ['under the usage limit', promotion({ usageLimit: 3, timesRedeemed: 2 }), at(500)],
    ['minimum exactly met', promotion({ minSubtotalCents: 10_000 }), at(500)],
    ['amount promotion without currency', promotion({ currency: null }), at(500)],
  ] as [string, Promotion, Date][])('accepts: %s', (_label, promo, now) => {
    expect(applyPromotion(promo, 10_000, 'USD', now)).toEqual({
      ok: true,
      discountCents: 500,
      totalCents: 9_500,
    });
  });

  it('does not check the currency of percent promotions', () => {
    const promo = promotion({
      discountType: 'percent',
      percentOff: 20,
      amountOffCents: null,
      currency: 'EUR',
    });
    expect(applyPromotion(promo, 10_000, 'USD', at(500))).toEqual({
      ok: true,
      discountCents: 2_000,
      totalCents: 8_000,
    });
  });

  it('caps the discount at the subtotal', () => {
    expect(applyPromotion(promotion({ amountOffCents: 5_000 }), 1_200, 'USD', at(500))).toEqual({
      ok: true,
      discountCents: 1_200,
      totalCents: 0,
    });
    const full = promotion({ discountType: 'percent', percentOff: 150, amountOffCents: null });
    expect(applyPromotion(full, 1_200, 'USD', at(500))).toEqual({
      ok: true,
      discountCents: 1_200,
      totalCents: 0,
    });
  });

  it('on success: discount + total == subtotal, both non-negative integers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.oneof(
          fc.record({
            discountType: fc.constant('amount' as const),
            amountOffCents: fc.integer({ min: 0, max: 2_000_000 }),
          }),
          fc.record({
            discountType: fc.constant('percent' as const),
            percentOff: fc.integer({ min: 0, max: 100 }),
          }),
        ),
        (subtotal, over) => {
          const result = applyPromotion(promotion(over), subtotal, 'USD', at(500));
          expect(result.ok).toBe(true);
          if (!result.ok) return;
          expect(result.discountCents + result.totalCents).toBe(subtotal);
          expect(result.discountCents).toBeGreaterThanOrEqual(0);
          expect(result.totalCents).toBeGreaterThanOrEqual(0);
          expect(Number.isInteger(result.totalCents)).toBe(true);
        },
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 8. planDirection and selectPlanChangeRule
// ---------------------------------------------------------------------------------------------

const plan = (id: string, family: string | null, rank: number | null): PlanSide => ({ id, family, rank });

let changeSeq = 0;
const changeRule = (over: Partial<PlanChangeRule>): PlanChangeRule => ({
  id: `pcr-${++changeSeq}`,
  name: 'change rule',
  family: null,
  fromProductId: null,
  toProductId: null,
  direction: null,
  changeTiming: 'immediate',
  prorationType: 'full_credit',
  ...over,
});

describe('planDirection', () => {
  it.each([
    [plan('a', 'f', 1), plan('b', 'f', 2), 'upgrade'],
    [plan('a', 'f', 2), plan('b', 'f', 1), 'downgrade'],
    [plan('a', 'f', 2), plan('b', 'f', 2), 'lateral'],
    [plan('a', 'f', null), plan('b', 'f', 1), 'upgrade'],
    [plan('a', 'f', 1), plan('b', 'f', null), 'downgrade'],
    [plan('a', 'f', 1), plan('b', 'g', 5), 'lateral'],
    [plan('a', 'f', 5), plan('b', 'g', 1), 'lateral'],
    [plan('a', null, 1), plan('b', null, 5), 'lateral'],
    [plan('a', null, 1), plan('b', 'f', 5), 'lateral'],
    [plan('a', 'f', 1), plan('b', null, 5), 'lateral'],
  ] as [PlanSide, PlanSide, string][])('%o -> %o is %s', (current, target, expected) => {
    expect(planDirection(current, target)).toBe(expected);
  });

  it('is antisymmetric within a family', () => {
    const flip = { upgrade: 'downgrade', downgrade: 'upgrade', lateral: 'lateral' } as const;
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 5 }), fc.integer({ min: -5, max: 5 }), (a, b) => {
        const x = plan('x', 'f', a);
        const y = plan('y', 'f', b);
        expect(planDirection(y, x)).toBe(flip[planDirection(x, y)]);
      }),
    );
  });
});

describe('selectPlanChangeRule', () => {
  const basic = plan('basic', 'f', 1);
  const pro = plan('pro', 'f', 2);

  it.each([
    [
      basic,
      pro,
      {
        ruleId: 'default-upgrade',
        direction: 'upgrade',
        changeTiming: 'immediate',
        prorationType: 'prorated',
      },
    ],
    [
      pro,
      basic,
      {
        ruleId: 'default-downgrade',
        direction: 'downgrade',
        changeTiming: 'end_of_period',
        prorationType: 'none',
      },
    ],
    [
      basic,
      plan('basic2', 'f', 1),
      {
        ruleId: 'default-lateral',
        direction: 'lateral',
        changeTiming: 'immediate',
        prorationType: 'prorated',
      },
    ],
    [
      basic,
      plan('other', 'g', 9),
      {
        ruleId: 'default-lateral',
        direction: 'lateral',
        changeTiming: 'immediate',
        prorationType: 'prorated',
      },
    ],
  ] as [PlanSide, PlanSide, object][])('defaults without rules: %o -> %o', (current, target, expected) => {
    const selected = selectPlanChangeRule([], current, target);
    expect(selected).toMatchObject(expected);
    expect(typeof selected.ruleName).toBe('string');
  });

  const pairRule = changeRule({
    id: 'pair',
    fromProductId: 'basic',
    toProductId: 'pro',
    changeTiming: 'end_of_period',
  });
  const familyUp = changeRule({ id: 'family-up', family: 'f', direction: 'upgrade', prorationType: 'none' });
  const familyDown = changeRule({ id: 'family-down', family: 'f', direction: 'downgrade' });
  const familyAny = changeRule({ id: 'family-any', family: 'f' });
  const otherFamily = changeRule({ id: 'other-family', family: 'g' });

  it.each([
    ['pair beats family+direction and family-only', [familyAny, familyUp, pairRule], basic, pro, 'pair'],
    ['family+direction beats family-only', [familyAny, familyUp], basic, pro, 'family-up'],
    ['family-only when no direction rule matches', [familyAny, familyDown], basic, pro, 'family-any'],
    [
      'family+direction for downgrade',
      [familyAny, familyUp, familyDown, pairRule],
      pro,
      basic,
      'family-down',
    ],
    ['pair rule is directional (reverse pair does not match)', [pairRule], pro, basic, 'default-downgrade'],
    ['rules of another family are ignored', [otherFamily], basic, pro, 'default-upgrade'],
    [
      'family rules do not apply across families',
      [familyAny],
      basic,
      plan('other', 'g', 3),
      'default-lateral',
    ],
    [
      'direction rule for the wrong direction falls back to default',
      [familyDown],
      basic,
      pro,
      'default-upgrade',
    ],
  ] as [string, PlanChangeRule[], PlanSide, PlanSide, string][])(
    '%s',
    (_label, rules, current, target, ruleId) => {
      expect(selectPlanChangeRule(rules, current, target).ruleId).toBe(ruleId);
    },
  );

  it('returns the selected rule settings with the computed direction', () => {
    expect(selectPlanChangeRule([familyUp, pairRule], basic, pro)).toEqual({
      ruleId: 'pair',
      ruleName: 'change rule',
      direction: 'upgrade',
      changeTiming: 'end_of_period',
      prorationType: 'full_credit',
    });
    expect(selectPlanChangeRule([familyUp], basic, pro)).toEqual({
      ruleId: 'family-up',
      ruleName: 'change rule',
      direction: 'upgrade',
      changeTiming: 'immediate',
      prorationType: 'none',
    });
  });

  it('a pair rule applies across families too', () => {
    const cross = changeRule({ id: 'cross', fromProductId: 'basic', toProductId: 'other' });
    expect(selectPlanChangeRule([cross], basic, plan('other', 'g', 0))).toMatchObject({
      ruleId: 'cross',
      direction: 'lateral',
    });
  });
});
