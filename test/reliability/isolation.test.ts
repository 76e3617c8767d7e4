import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { fetchDocument, fillPath, type Operation, operations, pathParams } from './support/openapi.js';
import { buildWorld, type Call, injectCall, type World } from './support/world.js';

// Tenant isolation matrix, generated from the OpenAPI document: every operation with a path id is
// called by tenant A with tenant B's real ids of every resource type (and A's own parent id with
// B's child id). Every answer must be 404, and B's data must read back unchanged. Every list
// endpoint must show A none of B's ids.

/** A valid body for each operation that needs one, so validation cannot answer before the lookup. */
function bodyFor(op: Operation, a: World): unknown {
  const bodies: Record<string, unknown> = {
    updateProduct: { name: 'changed' },
    updatePriceRule: { name: 'changed' },
    updateOffer: { percentOff: 20 },
    updatePromotion: { minSubtotalCents: 1000 },
    updatePlanLink: { explanation: 'changed' },
    updatePlanChangeRule: { prorationType: 'full_credit' },
    addCartItem: { productId: a.oneTimeProduct, quantity: 1 },
    applyCartPromo: { code: a.promotionCode },
    updateOrder: { status: 'changed' },
    updateWebhook: { isActive: false },
    payInvoice: { accountId: a.account, amountCents: 100, currency: 'USD' },
    updateAccount: { name: 'changed' },
    issueBillingInvoice: { lines: [{ description: 'x', unitAmountCents: 100 }] },
    addBillingPaymentMethod: { lastFour: '1111' },
    updatePolicy: { name: 'changed' },
    updateShippingOption: { name: 'changed' },
    changeSubscriptionPlan: { targetProductId: a.product },
    changeSubscriptionQuantity: { quantity: 3 },
    cancelSubscription: { timing: 'immediate' },
    completePaymentSession: { proof: 'isolation matrix' },
    createRefund: { reason: 'other' },
    grantCredit: { amountCents: 100, currency: 'USD', reason: 'isolation matrix' },
    applyCreditToInvoice: {},
    setTag: { value: 'isolation' },
    setProductStock: { tracked: true, onHand: 5 },
    updateProductContent: { status: 'published' },
    putProductContentLocale: { title: 'isolation' },
    updateProductContentLocale: { title: 'isolation' },
    putContentEntry: { title: 'isolation', body: 'x' },
    updateContentEntry: { title: 'isolation' },
    updateConsoleUser: { name: 'changed' },
    updatePartner: { name: 'changed' },
  };
  if (op.operationId in bodies) return bodies[op.operationId];
  if (op.requestBody?.required) throw new Error(`no body for ${op.operationId}: add one to bodyFor`);
  return undefined;
}

/**
 * Where docs/conformance.md answers an unknown id with something other than 404, another tenant's
 * id must get exactly that answer (indistinguishable from an id that does not exist):
 * - payInvoice: an invoice the billing system does not know is `400 validation_failed`
 *   (`field: invoiceId`, `rule: exists`);
 * - the account sub-lists take an account id (UUID) or a billing account id; any other billing id
 *   (an invoice's) is `400` `rule: format` by its shape alone.
 */
function documentedUnknown(op: Operation, res: { status: number; json(): any }): boolean {
  if (res.status !== 400) return false;
  const detail = res.json().details?.[0];
  if (op.operationId === 'payInvoice') return detail?.field === 'invoiceId' && detail?.rule === 'exists';
  if (op.path.startsWith('/api/v1/accounts/{id}/')) return detail?.rule === 'format';
  return false;
}

const ajv = new Ajv({ strict: false });
(addFormats as unknown as (a: Ajv) => void)(ajv);

/** Every id in a world (the promotion code is not an id). */
const ids = (w: World): string[] => Object.entries(w).flatMap(([k, v]) => (k === 'promotionCode' ? [] : [v]));

/** The id that belongs in the second path parameter, when a path has two. */
const CHILD: Record<string, keyof World> = { itemId: 'cartItem', deliveryId: 'delivery' };
/** Path parameters that name no resource of their own: the value B's resource has. */
const FIXED: Record<string, string> = { locale: 'en', version: '1' };
/** B's content page: content routes name a page by its key, in the caller's own namespace. */
const B_CONTENT_KEY = 'isolation-b';
const childValue = (w: World, p: string) => FIXED[p] ?? w[CHILD[p] as keyof World];
const PARENT: Record<string, keyof World> = {
  '/api/v1/carts/{id}': 'cart',
  '/api/v1/webhooks/{id}': 'webhook',
};

describe('tenant isolation matrix (from the OpenAPI document)', () => {
  let t: TestApp;
  let call: Call;
  let ops: Operation[];
  let tenantA: TestTenant;
  let tenantB: TestTenant;
  let a: World;
  let b: World;

  beforeAll(async () => {
    t = await startApp({ config: { webhookAllowPrivateTargets: true } });
    call = injectCall(t);
    ops = operations(await fetchDocument(call));
    tenantA = await createTestTenant(t.deps);
    tenantB = await createTestTenant(t.deps);
    a = await buildWorld(call, tenantA.keys, 'https://localhost:9/a');
    b = await buildWorld(call, tenantB.keys, 'https://localhost:9/b');
    // B's content page and B's product content (one version each), for the routes that name them.
    const page = { title: 'B only', body: 'x', status: 'published' };
    await call('PUT', `/api/v1/admin/content/${B_CONTENT_KEY}?locale=en`, tenantB.keys.admin, page);
    await call('PUT', `/api/v1/admin/products/${b.product}/content/en`, tenantB.keys.admin, { title: 'B' });
  }, 120_000);
  afterAll(() => t.app.close());

  /** Everything B can read about its own world: each GET by id and each list, as B sees it. */
  async function snapshotB(): Promise<Record<string, string>> {
    const snap: Record<string, string> = {};
    for (const op of ops) {
      if (op.method !== 'GET' || op.operationId === 'getOpenApiDocument') continue;
      // Views of the moment, not of B's resources: the overview's windows end now, and the recent
      // errors include this snapshot's own 404s.
      if (op.operationId === 'getOverview' || op.operationId === 'listRequestErrors') continue;
      const params = pathParams(op.path);
      const values: Record<string, string> = {};
      if (params.length > 0) {
        // Read B's own resource of the kind this path names, when it is obvious from the path.
        const kind = Object.entries(PATH_KIND).find(([prefix]) => op.path.startsWith(prefix))?.[1];
        if (!kind) continue;
        values[params[0] as string] = b[kind];
        for (const p of params.slice(1)) values[p] = childValue(b, p);
      }
      const res = await call('GET', fillPath(op.path, values), tenantB.keys.admin);
      // lastUsedAt of B's keys moves with every call; the listing of keys is compared without it.
      snap[`${op.operationId} ${fillPath(op.path, values)}`] = `${res.status} ${res.body
        .replace(/"lastUsedAt":"[^"]*"/g, '')
        .replace(/"requestId":"[^"]*"/g, '')}`;
    }
    return snap;
  }

  it('answers 404 to every path id of another tenant, for every resource type, and changes nothing', async () => {
    const before = await snapshotB();
    const withIds = ops.filter((op) => pathParams(op.path).length > 0);
    expect(withIds.length).toBeGreaterThan(50);
    const failures: string[] = [];
    let calls = 0;
    for (const op of withIds) {
      const params = pathParams(op.path);
      const [first, ...rest] = params as [string, ...string[]];
      const combos: Record<string, string>[] = [];
      // The tag routes name the resource in the path: B's resource of each tagged kind.
      if (first === 'resource') {
        for (const [resource, kind] of Object.entries(TAGGED))
          combos.push({ resource, id: b[kind], key: 'isolation' });
      }
      // B's ids of every type in the first parameter, with B's matching child id in the others.
      // Only ids the parameter's documented format admits: a uuid where a billing id is expected is
      // a 400 by the schema, before any lookup (and tells nothing about isolation).
      const schema = op.parameters.find((p) => p.in === 'path' && p.name === first)?.schema ?? {};
      const fits = ajv.compile(schema);
      // A page key names a page in the caller's own namespace: B's key, and a PUT of it by A is A's
      // own page (not a lookup of B's), so that is left out.
      if (first === 'key' && op.operationId === 'putContentEntry') continue;
      const candidates =
        first === 'resource' ? [] : first === 'key' ? [B_CONTENT_KEY] : ids(b).filter((id) => fits(id));
      if (candidates.length === 0 && combos.length === 0)
        failures.push(`${op.operationId}: no id of B fits ${JSON.stringify(schema)}`);
      for (const id of candidates) {
        const values: Record<string, string> = { [first]: id };
        for (const p of rest) values[p] = childValue(b, p);
        combos.push(values);
      }
      // A's own parent with B's child (a cart item of B in A's cart, B's delivery under A's webhook).
      if (rest.length > 0 && first !== 'resource') {
        const parent = Object.entries(PARENT).find(([prefix]) =>
          op.path.startsWith(prefix),
        )?.[1] as keyof World;
        if (parent) {
          const values: Record<string, string> = { [first]: a[parent] };
          for (const p of rest) values[p] = childValue(b, p);
          combos.push(values);
        }
      }
      for (const values of combos) {
        const url = fillPath(op.path, values);
        const res = await call(op.method, url, tenantA.keys.admin, bodyFor(op, a));
        calls++;
        if (res.status !== 404 && !documentedUnknown(op, res))
          failures.push(`${op.method} ${url} (${op.operationId}) -> ${res.status} ${res.body.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(800);
    expect(await snapshotB()).toEqual(before);
  }, 300_000);

  it('previews with another tenant’s subscription are 404 too', async () => {
    const previews = [
      ['/api/v1/preview/plan-change', { subscriptionId: b.subscription, targetProductId: a.product }],
      ['/api/v1/preview/add-on', { subscriptionId: b.subscription, addOnProductId: a.addOnProduct }],
      ['/api/v1/preview/cancellation', { subscriptionId: b.subscription, timing: 'immediate' }],
    ] as const;
    for (const [url, body] of previews) {
      const res = await call('POST', url, tenantA.keys.read, body);
      expect(res.status, `${url}: ${res.body}`).toBe(404);
    }
  });

  it('every list endpoint returns only the caller’s rows', async () => {
    const lists = ops.filter(
      (op) =>
        op.method === 'GET' &&
        pathParams(op.path).length === 0 &&
        op.scope !== null &&
        !op.parameters.some((p) => p.required),
    );
    expect(lists.length).toBeGreaterThan(15);
    const foreign = [...ids(b), tenantB.tenantId];
    const own = new Set(Object.values(a));
    for (const op of lists) {
      const res = await call('GET', op.path, tenantA.keys.admin);
      // 404 only for a singleton A has not configured (the payment provider).
      expect([200, 404], `${op.path}: ${res.body}`).toContain(res.status);
      for (const id of foreign) expect(res.body.includes(id), `${op.path} shows B's ${id}`).toBe(false);
      // Sanity: the lists that hold A's resources do show them (the check above is not vacuous).
      if (op.path === '/api/v1/orders') expect(res.body).toContain(a.order);
      if (op.path === '/api/v1/subscriptions') expect(res.body).toContain(a.subscription);
      if (op.path === '/api/v1/webhooks') expect(res.body).toContain(a.webhook);
      expect(own.size).toBeGreaterThan(20);
    }
    // Lists under a path id: A's own parent lists only A's rows.
    for (const url of [
      `/api/v1/accounts/${a.account}/invoices`,
      `/api/v1/accounts/${a.account}/subscriptions`,
      `/api/v1/accounts/${a.account}/payment-methods`,
      `/api/v1/webhooks/${a.webhook}/deliveries`,
    ]) {
      const res = await call('GET', url, tenantA.keys.admin);
      expect(res.status, `${url}: ${res.body}`).toBe(200);
      for (const id of foreign) expect(res.body.includes(id), `${url} shows B's ${id}`).toBe(false);
    }
  });
});

/** Path prefix -> the world resource it reads (for B's own snapshot). */
/** The tagged resources' collections and the kind of id each takes. */
const TAGGED: Record<string, keyof World> = {
  accounts: 'account',
  orders: 'order',
  subscriptions: 'subscription',
  payments: 'payment',
};

const PATH_KIND: Record<string, keyof World> = {
  '/api/v1/refunds/': 'refund',
  '/api/v1/admin/api-keys/': 'apiKey',
  '/api/v1/admin/products/': 'product',
  '/api/v1/admin/price-rules/': 'priceRule',
  '/api/v1/admin/offers/': 'offer',
  '/api/v1/admin/promotions/': 'promotion',
  '/api/v1/admin/plan-links/': 'planLink',
  '/api/v1/admin/plan-change-rules/': 'planChangeRule',
  '/api/v1/admin/policies/': 'policy',
  '/api/v1/admin/shipping-options/': 'shippingOption',
  '/api/v1/carts/': 'cart',
  '/api/v1/orders/': 'order',
  '/api/v1/payment-methods/': 'paymentMethod',
  '/api/v1/webhooks/': 'webhook',
  '/api/v1/payments/': 'payment',
  '/api/v1/accounts/': 'account',
  '/api/v1/subscriptions/': 'subscription',
};
