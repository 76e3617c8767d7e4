import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { checkOutCart, readCartForCheckout } from '../../src/modules/carts/index.js';
import { redeemPromotion } from '../../src/modules/catalog/index.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost, seatPlan } from '../support/catalog-fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOW = new Date('2031-06-15T12:00:00.000Z');
const UNKNOWN = '01900000-0000-7000-8000-000000000001';

type Method = 'GET' | 'POST' | 'DELETE';
type Json = Record<string, unknown>;
interface Line {
  id: string;
  productId: string;
  quantity: number;
  totalCents: number;
  listCents: number;
}
interface Cart {
  id: string;
  sessionId: string;
  status: string;
  items: Line[];
  subtotalCents: number;
  discountCents: number;
  totalCents: number;
  promo: Json | null;
  requiresQuote: boolean;
  updatedAt: string;
}

const seatCharge = seatPlan().charges[0];
const tieredOnly = (overrides: object = {}) =>
  seatPlan({
    name: 'Usage pack',
    type: 'one_time',
    family: null,
    rank: null,
    billingInterval: null,
    charges: [
      {
        name: 'Usage',
        chargeModel: 'tiered',
        tiers: [
          { upTo: 10, unitPriceCents: 100 },
          { upTo: null, unitPriceCents: 50, flatPriceCents: 200 },
        ],
      },
    ],
    ...overrides,
  });

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
const clock = new ManualClock(NOW);
/** Seats only: 1,000 a seat; 900 for segment smb (price rule), 10% off for smb (offer). */
let seats: { id: string; charges: { id: string }[] };
/** Graduated usage: 100 each up to 10, then 50 each + 200 flat. */
let usage: { id: string };
/** 1,000 a unit with a 10% offer for everyone. */
let offered: { id: string };
let eur: { id: string };
let inactive: { id: string };
let passthrough: { id: string };
let smbRule: { id: string };
let smbOffer: { id: string };
let tenPercent: { id: string };

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  seats = await adminPost(t, tenant, 'products', seatPlan({ name: 'Seats', charges: [seatCharge] }));
  usage = await adminPost(t, tenant, 'products', tieredOnly());
  offered = await adminPost(t, tenant, 'products', seatPlan({ name: 'Offered', charges: [seatCharge] }));
  eur = await adminPost(
    t,
    tenant,
    'products',
    seatPlan({ name: 'Euro', currency: 'EUR', charges: [seatCharge] }),
  );
  inactive = await adminPost(t, tenant, 'products', seatPlan({ name: 'Old', active: false }));
  passthrough = await adminPost(
    t,
    tenant,
    'products',
    seatPlan({ name: 'Shipped', charges: [seatCharge, { name: 'Carrier fee', kind: 'passthrough' }] }),
  );
  smbRule = await adminPost(t, tenant, 'price-rules', {
    name: 'SMB seats',
    productId: seats.id,
    chargeId: seats.charges[0]?.id,
    segment: 'smb',
    tiers: [{ upTo: null, unitPriceCents: 900 }],
  });
  smbOffer = await adminPost(t, tenant, 'offers', {
    name: 'SMB summer',
    productId: seats.id,
    discountType: 'percent',
    percentOff: 10,
    segment: 'smb',
    startsAt: '2031-06-01T00:00:00Z',
  });
  tenPercent = await adminPost(t, tenant, 'offers', {
    name: 'Launch',
    productId: offered.id,
    discountType: 'percent',
    percentOff: 10,
    startsAt: '2031-06-01T00:00:00Z',
  });
});
afterAll(() => t.app.close());

const call = (method: Method, path: string, key: string, payload?: object, headers: Json = {}) =>
  api(t, key).send(method, path, payload, { headers: headers as Record<string, string> });

const newCart = async (body: object = {}, who: TestTenant = tenant): Promise<Cart> => {
  const res = await call('POST', '/carts', who.keys.commerce, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
};
const add = (cartId: string, productId: string, quantity?: number, key = tenant.keys.commerce) =>
  call(
    'POST',
    `/carts/${cartId}/items`,
    key,
    quantity === undefined ? { productId } : { productId, quantity },
  );
const added = async (cartId: string, productId: string, quantity?: number): Promise<Cart> => {
  const res = await add(cartId, productId, quantity);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
};
const read = async (cartId: string, key = tenant.keys.read): Promise<Cart> => {
  const res = await call('GET', `/carts/${cartId}`, key);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const applyCode = (cartId: string, code: string) =>
  call('POST', `/carts/${cartId}/promo`, tenant.keys.commerce, { code });
const promotion = (body: object) =>
  adminPost(t, tenant, 'promotions', { name: 'Promo', discountType: 'percent', percentOff: 20, ...body });
const resolve = async (productId: string, quantity: number, context: Record<string, string> = {}) => {
  const query = new URLSearchParams({ productId, quantity: String(quantity), ...context });
  const res = await call('GET', `/pricing/resolve?${query}`, tenant.keys.read);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
/** The cart line GET /pricing/resolve implies for the same product, quantity and context. */
const lineFrom = (r: Json, productType: string) => ({
  id: expect.stringMatching(UUID),
  productId: r.productId,
  productName: r.productName,
  productType,
  quantity: r.quantity,
  unitPriceCents: r.unitPriceCents,
  totalCents: r.totalCents,
  listCents: r.subtotalCents,
  charges: (r.charges as Json[]).map((c) => ({
    chargeId: c.chargeId,
    name: c.name,
    kind: c.kind,
    chargeModel: c.chargeModel,
    amountCents: c.amountCents,
  })),
  appliedOffers: r.appliedOffers,
  appliedPriceRules: r.appliedPriceRules,
  requiresQuote: r.requiresQuote,
});
// An empty cart offers no checkout: an order of nothing is not a next step.
/** A cart's actions; `createAccount` while it has no buyer (every cart here but one). */
const actions = (id: string, allowed: boolean, withPromo = false, withItems = true, ownerless = true) => [
  { rel: 'self', method: 'GET', href: `/api/v1/carts/${id}`, requiredScope: 'read', allowed: true },
  { rel: 'addItem', method: 'POST', href: `/api/v1/carts/${id}/items`, requiredScope: 'commerce', allowed },
  {
    rel: 'applyPromo',
    method: 'POST',
    href: `/api/v1/carts/${id}/promo`,
    requiredScope: 'commerce',
    allowed,
  },
  ...(withPromo
    ? [
        {
          rel: 'removePromo',
          method: 'DELETE',
          href: `/api/v1/carts/${id}/promo`,
          requiredScope: 'commerce',
          allowed,
        },
      ]
    : []),
  ...(ownerless
    ? [{ rel: 'createAccount', method: 'POST', href: '/api/v1/accounts', requiredScope: 'commerce', allowed }]
    : []),
  ...(withItems
    ? [
        {
          rel: 'checkout',
          method: 'POST',
          href: '/api/v1/orders',
          requiredScope: 'commerce',
          allowed,
          operationId: 'createOrder',
          arguments: { cartId: id },
        },
      ]
    : []),
];

describe('carts: create', () => {
  it('creates an empty active cart with defaults; GET reads it back', async () => {
    const res = await call('POST', '/carts', tenant.keys.commerce, {});
    expect(res.statusCode).toBe(201);
    const { data, nextActions } = res.json();
    expect(data).toEqual({
      id: expect.stringMatching(UUID),
      tenantId: tenant.tenantId,
      sessionId: expect.stringMatching(/^sess_[0-9a-f]{32}$/),
      status: 'active',
      currency: 'USD',
      customerContext: { segment: null, locale: null, partner: null },
      contactId: null,
      organizationId: null,
      items: [],
      subtotalCents: 0,
      discountCents: 0,
      totalCents: 0,
      promo: null,
      requiresQuote: false,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    });
    expect(nextActions).toEqual(actions(data.id, true, false, false).map((a) => expect.objectContaining(a)));
    const get = await call('GET', `/carts/${data.id}`, tenant.keys.read);
    expect(get.statusCode).toBe(200);
    expect(get.json()).toMatchObject({ data, nextActions: actions(data.id, false, false, false) });
    // Two carts get two session ids.
    expect((await newCart()).sessionId).not.toBe(data.sessionId);
  });

  it('stores every field', async () => {
    const account = await call('POST', '/accounts', tenant.keys.commerce, { name: 'Acme' });
    const organizationId = account.json().data.id;
    const contactId = randomUUID();
    const body = {
      sessionId: 'conversation-42',
      currency: 'EUR',
      customerContext: { segment: 'smb', locale: 'de-DE', partner: 'acme' },
      contactId,
      organizationId,
    };
    const cart = await newCart(body);
    expect(cart).toMatchObject({ ...body, status: 'active', items: [], totalCents: 0, promo: null });
    expect(await read(cart.id)).toEqual(cart);
    // A cart with a buyer does not ask for an account.
    const owned = await call('GET', `/carts/${cart.id}`, tenant.keys.commerce);
    expect(owned.json().nextActions).toEqual(
      actions(cart.id, true, false, false, false).map((a) => expect.objectContaining(a)),
    );
    const nulls = await newCart({
      contactId: null,
      organizationId: null,
      customerContext: { segment: null },
    });
    expect(nulls).toMatchObject({
      contactId: null,
      organizationId: null,
      customerContext: { segment: null, locale: null, partner: null },
    });
  });

  // [label, body, field at fault (null: valid), rule]
  const cases: [string, Json, string | null, string][] = [
    ['sessionId at 255', { sessionId: 's'.repeat(255) }, null, ''],
    ['sessionId over 255', { sessionId: 's'.repeat(256) }, 'sessionId', 'maxLength'],
    ['empty sessionId', { sessionId: '' }, 'sessionId', 'minLength'],
    ['lower-case currency', { currency: 'usd' }, 'currency', 'pattern'],
    ['2-letter currency', { currency: 'US' }, 'currency', 'pattern'],
    ['segment at 100', { customerContext: { segment: 's'.repeat(100) } }, null, ''],
    [
      'segment over 100',
      { customerContext: { segment: 's'.repeat(101) } },
      'customerContext.segment',
      'maxLength',
    ],
    ['locale at 20', { customerContext: { locale: 'l'.repeat(20) } }, null, ''],
    [
      'locale over 20',
      { customerContext: { locale: 'l'.repeat(21) } },
      'customerContext.locale',
      'maxLength',
    ],
    ['partner at 255', { customerContext: { partner: 'p'.repeat(255) } }, null, ''],
    [
      'partner over 255',
      { customerContext: { partner: 'p'.repeat(256) } },
      'customerContext.partner',
      'maxLength',
    ],
    [
      'unknown context field',
      { customerContext: { color: 'red' } },
      'customerContext.color',
      'additionalProperties',
    ],
    ['contactId not a UUID', { contactId: 'nope' }, 'contactId', 'format'],
    ['organizationId not a UUID', { organizationId: 'nope' }, 'organizationId', 'format'],
    ['unknown organizationId', { organizationId: UNKNOWN }, 'organizationId', 'exists'],
    ['unknown field', { surprise: 1 }, 'surprise', 'additionalProperties'],
  ];
  it.each(cases)('%s', async (_label, body, field, rule) => {
    const res = await call('POST', '/carts', tenant.keys.commerce, body);
    if (field === null) {
      expect(res.statusCode, res.body).toBe(201);
      return;
    }
    expect(res.statusCode).toBe(400);
    expect(errorBody(res)).toMatchObject({ code: 'validation_failed' });
    expect(errorBody(res).details).toContainEqual(
      expect.objectContaining({ field, rule, message: expect.stringContaining(field) }),
    );
  });

  it('refuses another tenant’s account as organizationId', async () => {
    const theirs = (await call('POST', '/accounts', other.keys.commerce, { name: 'Theirs' })).json().data;
    const res = await call('POST', '/carts', tenant.keys.commerce, { organizationId: theirs.id });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details).toMatchObject([
      { field: 'organizationId', rule: 'exists', message: expect.stringContaining(theirs.id) },
    ]);
  });
});

describe('carts: items', () => {
  it('prices per-unit and tiered lines exactly like GET /pricing/resolve', async () => {
    const cart = await newCart();
    const one = await added(cart.id, seats.id);
    expect(one.items).toEqual([lineFrom(await resolve(seats.id, 1), 'subscription')]);
    expect(one.items[0]).toMatchObject({ quantity: 1, unitPriceCents: 1000, totalCents: 1000 });
    const res = await add(cart.id, usage.id, 12);
    expect(res.statusCode).toBe(201);
    const { data, nextActions } = res.json();
    expect(data.items).toEqual([
      lineFrom(await resolve(seats.id, 1), 'subscription'),
      lineFrom(await resolve(usage.id, 12), 'one_time'),
    ]);
    // Graduated: 10 x 100 + 2 x 50 + 200 flat.
    expect(data.items[1]).toMatchObject({ totalCents: 1300, listCents: 1300, unitPriceCents: 108 });
    expect(data).toMatchObject({
      subtotalCents: 2300,
      discountCents: 0,
      totalCents: 2300,
      requiresQuote: false,
    });
    expect(nextActions).toMatchObject(actions(cart.id, true));
    expect(await read(cart.id)).toEqual(data);
  });

  it('prices with the cart’s customerContext: price rules and offers', async () => {
    const context = { segment: 'smb', locale: 'de-DE' };
    const cart = await newCart({ customerContext: context });
    const data = await added(cart.id, seats.id, 3);
    const r = await resolve(seats.id, 3, context);
    expect(data.items).toEqual([lineFrom(r, 'subscription')]);
    // 3 x 900 (rule) = 2700, less 10% (offer) = 2430.
    expect(data.items[0]).toMatchObject({
      listCents: 2700,
      totalCents: 2430,
      unitPriceCents: 810,
      appliedPriceRules: [{ id: smbRule.id, name: 'SMB seats', chargeId: seats.charges[0]?.id }],
      appliedOffers: [{ id: smbOffer.id, name: 'SMB summer', discountCents: 270 }],
    });
    expect(data).toMatchObject({ subtotalCents: 2700, discountCents: 270, totalCents: 2430 });
  });

  it('merges a re-added product into its line and re-prices it for the new quantity', async () => {
    const cart = await newCart();
    const first = await added(cart.id, usage.id, 5);
    const lineId = first.items[0]?.id;
    expect(first.items[0]).toMatchObject({ quantity: 5, totalCents: 500 });
    const merged = await added(cart.id, usage.id, 7);
    expect(merged.items).toEqual([{ ...lineFrom(await resolve(usage.id, 12), 'one_time'), id: lineId }]);
    // Priced as one line of 12 (1300), not 500 + 7 units priced apart.
    expect(merged).toMatchObject({ subtotalCents: 1300, totalCents: 1300 });
    expect((await read(cart.id)).items).toEqual(merged.items);
    const defaulted = await added(cart.id, usage.id);
    expect(defaulted.items).toHaveLength(1);
    expect(defaulted.items[0]?.quantity).toBe(13);
    const over = await add(cart.id, usage.id, 100_000);
    expect(over.statusCode).toBe(400);
    expect(errorBody(over).details).toMatchObject([
      { field: 'quantity', rule: 'maximum', message: expect.stringContaining('99987') },
    ]);
    expect((await read(cart.id)).items[0]?.quantity).toBe(13);
  });

  it.each([
    ['missing productId', {}, 'productId', 'required'],
    ['productId not a UUID', { productId: 'nope' }, 'productId', 'format'],
    ['quantity 0', { productId: UNKNOWN, quantity: 0 }, 'quantity', 'minimum'],
    ['quantity over 100000', { productId: UNKNOWN, quantity: 100_001 }, 'quantity', 'maximum'],
    ['fractional quantity', { productId: UNKNOWN, quantity: 1.5 }, 'quantity', 'type'],
    ['string quantity', { productId: UNKNOWN, quantity: '2' }, 'quantity', 'type'],
    ['unknown field', { productId: UNKNOWN, note: 'x' }, 'note', 'additionalProperties'],
  ])('400 for %s', async (_label, body, field, rule) => {
    const cart = await newCart();
    const res = await call('POST', `/carts/${cart.id}/items`, tenant.keys.commerce, body);
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details).toContainEqual(expect.objectContaining({ field, rule }));
  });

  it('accepts quantity 100000', async () => {
    const cart = await newCart();
    expect((await added(cart.id, seats.id, 100_000)).totalCents).toBe(100_000_000);
  });

  it('400 naming productId for an unknown, inactive, other-tenant or other-currency product', async () => {
    const cart = await newCart();
    const theirs = await adminPost(t, other, 'products', seatPlan());
    const cases: [string, string][] = [
      [UNKNOWN, 'exists'],
      [theirs.id, 'exists'],
      [inactive.id, 'active'],
      [eur.id, 'currency'],
    ];
    for (const [productId, rule] of cases) {
      const res = await add(cart.id, productId, 1);
      expect(res.statusCode, rule).toBe(400);
      expect(errorBody(res)).toMatchObject({ code: 'validation_failed' });
      expect(errorBody(res).details).toMatchObject([
        { field: 'productId', rule, message: expect.stringContaining(productId) },
      ]);
    }
    expect(errorBody(await add(cart.id, eur.id, 1)).error).toBe(
      `productId ${eur.id} is priced in EUR; this cart is in USD`,
    );
    expect((await read(cart.id)).items).toEqual([]);
    // A EUR cart takes the EUR product.
    const euro = await newCart({ currency: 'EUR' });
    expect((await added(euro.id, eur.id, 2)).totalCents).toBe(2000);
  });

  it('flags passthrough charges: priced at checkout, outside the totals', async () => {
    const cart = await newCart();
    const data = await added(cart.id, passthrough.id, 3);
    expect(data.items).toEqual([lineFrom(await resolve(passthrough.id, 3), 'subscription')]);
    expect(data.items[0]).toMatchObject({
      requiresQuote: true,
      totalCents: 3000,
      charges: [
        expect.objectContaining({ kind: 'modeled', amountCents: 3000 }),
        expect.objectContaining({
          name: 'Carrier fee',
          kind: 'passthrough',
          chargeModel: null,
          amountCents: null,
        }),
      ],
    });
    expect(data).toMatchObject({ requiresQuote: true, subtotalCents: 3000, totalCents: 3000 });
    const other = await added(cart.id, seats.id, 1);
    expect(other.requiresQuote).toBe(true);
  });

  it('removes a line and re-prices the rest; 404 for an unknown item', async () => {
    const cart = await newCart();
    await added(cart.id, seats.id, 2);
    const both = await added(cart.id, usage.id, 3);
    const [seatLine, usageLine] = both.items;
    const res = await call('DELETE', `/carts/${cart.id}/items/${seatLine?.id}`, tenant.keys.commerce);
    expect(res.statusCode).toBe(200);
    const { data, nextActions } = res.json();
    expect(data.items).toEqual([usageLine]);
    expect(data).toMatchObject({ subtotalCents: 300, discountCents: 0, totalCents: 300 });
    expect(nextActions).toMatchObject(actions(cart.id, true));
    expect(await read(cart.id)).toEqual(data);
    for (const itemId of [seatLine?.id, UNKNOWN]) {
      const again = await call('DELETE', `/carts/${cart.id}/items/${itemId}`, tenant.keys.commerce);
      expect(again.statusCode).toBe(404);
      expect(errorBody(again)).toMatchObject({ code: 'not_found', error: 'Cart item not found' });
    }
    // An item of another cart is not an item of this one.
    const elsewhere = await newCart();
    const res2 = await call('DELETE', `/carts/${elsewhere.id}/items/${usageLine?.id}`, tenant.keys.commerce);
    expect(res2.statusCode).toBe(404);
    const last = await call('DELETE', `/carts/${cart.id}/items/${usageLine?.id}`, tenant.keys.commerce);
    expect(last.json().data).toMatchObject({
      items: [],
      subtotalCents: 0,
      discountCents: 0,
      totalCents: 0,
    });
  });

  it('400 naming path.itemId / path.id when they are not UUIDs', async () => {
    const cart = await newCart();
    const res = await call('DELETE', `/carts/${cart.id}/items/nope`, tenant.keys.commerce);
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details).toContainEqual(
      expect.objectContaining({ field: 'path.itemId', rule: 'format' }),
    );
    const get = await call('GET', '/carts/nope', tenant.keys.read);
    expect(get.statusCode).toBe(400);
    expect(errorBody(get).details).toContainEqual(
      expect.objectContaining({ field: 'path.id', rule: 'format' }),
    );
  });

  it('replays an add with the same Idempotency-Key without adding the quantity twice', async () => {
    const cart = await newCart();
    const send = () =>
      call(
        'POST',
        `/carts/${cart.id}/items`,
        tenant.keys.commerce,
        { productId: usage.id, quantity: 4 },
        {
          'idempotency-key': `add-${cart.id}`,
        },
      );
    const first = await send();
    expect(first.statusCode).toBe(201);
    const replay = await send();
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect((await read(cart.id)).items.map((i) => i.quantity)).toEqual([4]);
  });
});

describe('carts: promotion codes', () => {
  it('applies a percent code after offers, an amount code capped at the total, and removes it', async () => {
    const cart = await newCart();
    const withOffer = await added(cart.id, offered.id, 10);
    // 10 x 1000 = 10000, less the 10% offer = 9000.
    expect(withOffer.items[0]).toMatchObject({
      listCents: 10_000,
      totalCents: 9000,
      appliedOffers: [{ id: tenPercent.id, name: 'Launch', discountCents: 1000 }],
    });
    expect(withOffer).toMatchObject({ subtotalCents: 10_000, discountCents: 1000, totalCents: 9000 });

    const pct = await promotion({ code: 'Save20', percentOff: 20 });
    const res = await applyCode(cart.id, 'save20');
    expect(res.statusCode, res.body).toBe(200);
    const { data, nextActions } = res.json();
    // 20% of 9000 (after the offer) = 1800.
    expect(data).toMatchObject({
      subtotalCents: 10_000,
      discountCents: 2800,
      totalCents: 7200,
      promo: { code: 'SAVE20', promotionId: pct.id, discountCents: 1800, applies: true, reason: null },
    });
    expect(nextActions).toMatchObject(actions(cart.id, true, true));
    expect(await read(cart.id)).toEqual(data);

    const big = await promotion({
      code: 'BIG',
      discountType: 'amount',
      percentOff: null,
      amountOffCents: 50_000,
      currency: 'USD',
    });
    const capped = (await applyCode(cart.id, 'BIG')).json().data;
    expect(capped).toMatchObject({
      subtotalCents: 10_000,
      discountCents: 10_000,
      totalCents: 0,
      promo: { code: 'BIG', promotionId: big.id, discountCents: 9000, applies: true, reason: null },
    });
    expect(await read(cart.id)).toEqual(capped);

    const removed = await call('DELETE', `/carts/${cart.id}/promo`, tenant.keys.commerce);
    expect(removed.statusCode).toBe(200);
    expect(removed.json().data).toMatchObject({
      subtotalCents: 10_000,
      discountCents: 1000,
      totalCents: 9000,
      promo: null,
    });
    expect(removed.json().nextActions).toMatchObject(actions(cart.id, true));
    const before = await read(cart.id);
    const again = await call('DELETE', `/carts/${cart.id}/promo`, tenant.keys.commerce);
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(before);
  });

  it('keeps a code that stops applying with applies false and the reason, and applies it again', async () => {
    const cart = await newCart();
    await added(cart.id, offered.id, 10);
    const two = await added(cart.id, usage.id, 10); // 9000 + 1000
    const min = await promotion({ code: 'MIN9500', percentOff: 10, minSubtotalCents: 9500 });
    const applied = (await applyCode(cart.id, 'MIN9500')).json().data;
    expect(applied).toMatchObject({
      subtotalCents: 11_000,
      discountCents: 2000,
      totalCents: 9000,
      promo: { code: 'MIN9500', promotionId: min.id, discountCents: 1000, applies: true, reason: null },
    });
    const res = await call('DELETE', `/carts/${cart.id}/items/${two.items[1]?.id}`, tenant.keys.commerce);
    expect(res.statusCode).toBe(200);
    const dropped = res.json().data;
    expect(dropped).toMatchObject({
      subtotalCents: 10_000,
      discountCents: 1000,
      totalCents: 9000,
      promo: {
        code: 'MIN9500',
        promotionId: min.id,
        discountCents: 0,
        applies: false,
        reason: 'minimum_not_met',
      },
    });
    expect(res.json().nextActions).toMatchObject(actions(cart.id, true, true));
    expect(await read(cart.id)).toEqual(dropped);
    const back = await added(cart.id, usage.id, 10);
    expect(back).toMatchObject({
      totalCents: 9000,
      promo: { code: 'MIN9500', discountCents: 1000, applies: true, reason: null },
    });
  });

  it('400 minimum_not_met when the cart is below the code’s minimum; the cart is unchanged', async () => {
    const cart = await newCart();
    await added(cart.id, offered.id, 10);
    await promotion({ code: 'MIN20K', minSubtotalCents: 20_000 });
    const before = await read(cart.id);
    const res = await applyCode(cart.id, 'MIN20K');
    expect(res.statusCode).toBe(400);
    expect(errorBody(res)).toMatchObject({
      code: 'validation_failed',
      error: 'Promotion code MIN20K needs a cart total (after offers) of at least 20000 cents',
      details: [{ field: 'code', rule: 'minimum_not_met', message: expect.any(String) }],
    });
    expect(await read(cart.id)).toEqual(before);
  });

  it('400 naming code with the reason for each rejection', async () => {
    const cart = await newCart();
    await added(cart.id, seats.id, 5);
    await promotion({ code: 'OFF', active: false });
    await promotion({ code: 'LATER', startsAt: '2031-07-01T00:00:00Z' });
    await promotion({ code: 'OVER', startsAt: '2031-01-01T00:00:00Z', endsAt: '2031-06-01T00:00:00Z' });
    const once = await promotion({ code: 'ONCE', usageLimit: 1 });
    expect(await redeemPromotion(t.deps.db, tenant.tenantId, once.id)).toBe(true);
    await promotion({
      code: 'EURO5',
      discountType: 'amount',
      percentOff: null,
      amountOffCents: 500,
      currency: 'EUR',
    });
    const cases: [string, string, string][] = [
      ['NOPE', 'unknown', 'No promotion with code NOPE exists'],
      ['OFF', 'inactive', 'Promotion code OFF is not active'],
      [
        'later',
        'not_started',
        'Promotion code LATER is not valid yet: it starts at 2031-07-01T00:00:00.000Z',
      ],
      ['OVER', 'expired', 'Promotion code OVER expired at 2031-06-01T00:00:00.000Z'],
      ['ONCE', 'exhausted', 'Promotion code ONCE has reached its usage limit'],
      ['EURO5', 'currency_mismatch', 'Promotion code EURO5 is an amount in EUR; this cart is in USD'],
    ];
    for (const [code, rule, message] of cases) {
      const res = await applyCode(cart.id, code);
      expect(res.statusCode, code).toBe(400);
      expect(errorBody(res)).toMatchObject({
        code: 'validation_failed',
        error: message,
        details: [{ field: 'code', rule, message }],
      });
    }
    expect((await read(cart.id)).promo).toBeNull();
  });

  it.each([
    ['empty code', { code: '' }, 'code', 'minLength'],
    ['code over 64', { code: 'C'.repeat(65) }, 'code', 'maxLength'],
    ['missing code', {}, 'code', 'required'],
  ])('400 for %s', async (_label, body, field, rule) => {
    const cart = await newCart();
    const res = await call('POST', `/carts/${cart.id}/promo`, tenant.keys.commerce, body);
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details).toContainEqual(expect.objectContaining({ field, rule }));
  });
});

describe('carts: access', () => {
  it('404 for another tenant’s cart on every route', async () => {
    const cart = await newCart();
    const line = (await added(cart.id, seats.id, 1)).items[0];
    const key = other.keys.commerce;
    const attempts = [
      () => call('GET', `/carts/${cart.id}`, other.keys.read),
      () => call('POST', `/carts/${cart.id}/items`, key, { productId: seats.id }),
      () => call('DELETE', `/carts/${cart.id}/items/${line?.id}`, key),
      () => call('POST', `/carts/${cart.id}/promo`, key, { code: 'SAVE20' }),
      () => call('DELETE', `/carts/${cart.id}/promo`, key),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      expect(res.statusCode).toBe(404);
      expect(errorBody(res)).toMatchObject({ code: 'not_found', error: 'Cart not found' });
    }
    expect((await call('GET', `/carts/${UNKNOWN}`, tenant.keys.read)).statusCode).toBe(404);
    expect(await read(cart.id)).toMatchObject({ items: [line] });
  });

  it('403 for a read key on every write; 401 without a key', async () => {
    const cart = await newCart();
    const line = (await added(cart.id, seats.id, 1)).items[0];
    const key = tenant.keys.read;
    const attempts = [
      () => call('POST', '/carts', key, {}),
      () => call('POST', `/carts/${cart.id}/items`, key, { productId: seats.id }),
      () => call('DELETE', `/carts/${cart.id}/items/${line?.id}`, key),
      () => call('POST', `/carts/${cart.id}/promo`, key, { code: 'SAVE20' }),
      () => call('DELETE', `/carts/${cart.id}/promo`, key),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      expect(res.statusCode).toBe(403);
      expect(errorBody(res).code).toBe('forbidden');
    }
    const anonymous = await t.app.inject({ method: 'GET', url: `/api/v1/carts/${cart.id}` });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('carts: checkout hand-off', () => {
  it('readCartForCheckout returns the stored lines, totals and version; checkOutCart refuses a changed cart; checked_out carts refuse every change', async () => {
    const cart = await newCart({ customerContext: { segment: 'smb' }, contactId: UNKNOWN });
    await added(cart.id, seats.id, 3);
    await added(cart.id, passthrough.id, 1);
    const promo = await promotion({ code: 'CHECKOUT10', percentOff: 10 });
    const priced: Cart = (await applyCode(cart.id, 'CHECKOUT10')).json().data;
    // Seats: 3 x 900 - 10% = 2430; shipped: 1000; code: 10% of 3430 = 343.
    expect(priced).toMatchObject({ subtotalCents: 3700, discountCents: 613, totalCents: 3087 });

    const locked = await t.deps.db.transaction((tx) =>
      readCartForCheckout(tx, tenant.tenantId, cart.id, true),
    );
    expect(locked).toEqual({
      id: cart.id,
      version: 4,
      currency: 'USD',
      customerContext: { segment: 'smb', locale: null, partner: null },
      contactId: UNKNOWN,
      organizationId: null,
      promotionId: promo.id,
      promoCode: 'CHECKOUT10',
      promoDiscountCents: 343,
      subtotalCents: 3700,
      discountCents: 613,
      totalCents: 3087,
      items: [
        {
          productId: seats.id,
          productName: 'Seats',
          productType: 'subscription',
          quantity: 3,
          unitPriceCents: 810,
          totalCents: 2430,
          requiresQuote: false,
        },
        {
          productId: passthrough.id,
          productName: 'Shipped',
          productType: 'subscription',
          quantity: 1,
          unitPriceCents: 1000,
          totalCents: 1000,
          requiresQuote: true,
        },
      ],
    });
    const lookups = await t.deps.db.transaction(async (tx) => [
      await readCartForCheckout(tx, other.tenantId, cart.id, true),
      await readCartForCheckout(tx, tenant.tenantId, UNKNOWN, false),
      await readCartForCheckout(tx, tenant.tenantId, 'not-a-uuid', true),
    ]);
    expect(lookups).toEqual(['not_found', 'not_found', 'not_found']);

    if (typeof locked === 'string') throw new Error(locked);
    const stale = { ...locked, version: locked.version - 1 };
    await expect(
      t.deps.db.transaction((tx) => checkOutCart(tx, tenant.tenantId, stale, clock.now())),
    ).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('changed') });
    clock.advance(60_000);
    await t.deps.db.transaction((tx) => checkOutCart(tx, tenant.tenantId, locked, clock.now()));
    expect(await t.deps.db.transaction((tx) => readCartForCheckout(tx, tenant.tenantId, cart.id, true))).toBe(
      'checked_out',
    );

    const get = await call('GET', `/carts/${cart.id}`, tenant.keys.commerce);
    expect(get.json()).toMatchObject({
      data: { ...priced, status: 'checked_out', updatedAt: clock.now().toISOString() },
      nextActions: [
        {
          rel: 'self',
          method: 'GET',
          href: `/api/v1/carts/${cart.id}`,
          requiredScope: 'read',
          allowed: true,
        },
        { rel: 'createCart', method: 'POST', href: '/api/v1/carts', allowed: true },
      ],
    });
    const key = tenant.keys.commerce;
    const line = priced.items[0];
    const attempts = [
      () => call('POST', `/carts/${cart.id}/items`, key, { productId: seats.id }),
      () => call('DELETE', `/carts/${cart.id}/items/${line?.id}`, key),
      () => call('POST', `/carts/${cart.id}/promo`, key, { code: 'CHECKOUT10' }),
      () => call('DELETE', `/carts/${cart.id}/promo`, key),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      expect(res.statusCode).toBe(409);
      // A specific code, and the way out: a new cart.
      expect(errorBody(res)).toMatchObject({
        code: 'cart_checked_out',
        error: expect.stringContaining('checked_out'),
        nextActions: [{ rel: 'createCart', method: 'POST', href: '/api/v1/carts', allowed: true }],
      });
    }
    expect((await read(cart.id)).items).toEqual(priced.items);
    clock.set(NOW);
  });
});

describe('carts: OpenAPI', () => {
  it('is described in the OpenAPI document under the Carts tag', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const ops = [
      ['post', '/api/v1/carts', 'createCart'],
      ['get', '/api/v1/carts/{id}', 'getCart'],
      ['post', '/api/v1/carts/{id}/items', 'addCartItem'],
      ['delete', '/api/v1/carts/{id}/items/{itemId}', 'removeCartItem'],
      ['post', '/api/v1/carts/{id}/promo', 'applyCartPromo'],
      ['delete', '/api/v1/carts/{id}/promo', 'removeCartPromo'],
    ] as const;
    for (const [method, path, operationId] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toMatchObject({ operationId, tags: ['Carts'] });
    }
    expect(doc.paths['/api/v1/carts/{id}/items'].post.description).toContain('MERGES');
  });
});
