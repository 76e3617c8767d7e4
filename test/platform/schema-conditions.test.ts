import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPE_NAMES } from '../../src/events/event-types.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';

// Issue 27, item 14: the document states the conditional rules the server enforces (discount
// types and their amounts, charge kinds and models, price rule contexts, plan-change rule forms,
// the policy condition, fixed value sets). Each case is checked twice: against the served
// document's own schema, and by the server. What the document forbids is a 400 naming the field;
// what it allows is created.

type Doc = { paths: Record<string, Record<string, { requestBody?: unknown }>> };

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

describe('the document states the conditional rules the server enforces (issue 27, item 14)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let doc: Doc;
  let ajv: InstanceType<typeof Ajv2020.default>;
  let productId: string;
  let chargeId: string;

  beforeAll(async () => {
    // Webhook targets on this machine only: nothing is sent anywhere else.
    t = await startApp({ config: { webhookAllowPrivateTargets: true } });
    tenant = await createTestTenant(t.deps);
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    ajv = new Ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(structuredClone(doc), 'openapi');
    const product = await post('/admin/products', {
      name: 'Seats',
      type: 'subscription',
      family: 'core',
      billingInterval: 'month',
      currency: 'USD',
      charges: [{ name: 'Seats', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 1000 }] }],
    });
    expect(product.statusCode, product.body).toBe(201);
    productId = product.json().data.id;
    chargeId = product.json().data.charges[0].id;
  });
  afterAll(() => t.app.close());

  const post = (path: string, payload: object) => api(t, tenant.keys.admin).post(path, payload);

  /** Whether the served document's request schema of POST `path` accepts `body`. */
  const documentAccepts = (path: string, body: object) => {
    const where = pointer('paths', `/api/v1${path}`, 'post', 'requestBody', 'content', 'application/json');
    const validate = ajv.getSchema(`openapi#/${where}/schema`);
    expect(validate, where).toBeDefined();
    return Boolean(validate?.(body));
  };

  const refused = async (path: string, body: object, field: string, rule: string) => {
    expect(documentAccepts(path, body), `document accepts ${JSON.stringify(body)}`).toBe(false);
    const res = await post(path, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(errorBody(res).code).toBe('validation_failed');
    expect(errorBody(res).details, res.body).toContainEqual(expect.objectContaining({ field, rule }));
  };
  const accepted = async (path: string, body: object) => {
    expect(documentAccepts(path, body), `document refuses ${JSON.stringify(body)}`).toBe(true);
    const res = await post(path, body);
    expect(res.statusCode, res.body).toBe(201);
  };

  it('discount types: percent takes percentOff only, amount takes amountOffCents (and a promotion a currency)', async () => {
    const offer = { name: 'o', productId, startsAt: '2026-03-01T00:00:00Z' };
    await refused('/admin/offers', { ...offer, discountType: 'percent' }, 'percentOff', 'required');
    await refused(
      '/admin/offers',
      { ...offer, discountType: 'percent', percentOff: 10, amountOffCents: 100 },
      'amountOffCents',
      'type',
    );
    await refused(
      '/admin/offers',
      { ...offer, discountType: 'amount', percentOff: 10 },
      'amountOffCents',
      'required',
    );
    await accepted('/admin/offers', {
      ...offer,
      discountType: 'percent',
      percentOff: 10,
      amountOffCents: null,
    });
    await accepted('/admin/offers', { ...offer, discountType: 'amount', amountOffCents: 500 });

    const promo = { name: 'p', discountType: 'amount', amountOffCents: 500 };
    await refused('/admin/promotions', { ...promo, code: 'NOCUR' }, 'currency', 'required');
    await refused('/admin/promotions', { ...promo, code: 'NULLCUR', currency: null }, 'currency', 'type');
    await accepted('/admin/promotions', { ...promo, code: 'USD5', currency: 'USD' });
    await accepted('/admin/promotions', { name: 'p', code: 'TEN', discountType: 'percent', percentOff: 10 });
  });

  it('charges: modeled needs a model and tiers, passthrough takes neither, flat_fee and per_unit one tier', async () => {
    const product = (charge: object) => ({
      name: 'P',
      type: 'one_time',
      currency: 'USD',
      charges: [{ name: 'c', ...charge }],
    });
    const tier = { upTo: null, unitPriceCents: 100 };
    await refused('/admin/products', product({ tiers: [tier] }), 'charges.0.chargeModel', 'required');
    await refused('/admin/products', product({ chargeModel: 'per_unit' }), 'charges.0.tiers', 'required');
    await refused(
      '/admin/products',
      product({ kind: 'passthrough', tiers: [tier] }),
      'charges.0.tiers',
      'forbidden',
    );
    await refused(
      '/admin/products',
      product({ chargeModel: 'flat_fee', tiers: [{ upTo: 5, unitPriceCents: 1 }, tier] }),
      'charges.0.tiers',
      'maxItems',
    );
    await accepted('/admin/products', product({ kind: 'passthrough' }));
    await accepted(
      '/admin/products',
      product({ chargeModel: 'tiered', tiers: [{ upTo: 5, unitPriceCents: 1 }, tier] }),
    );
  });

  it('price rules: a context (segment, locale or partner), and one tier for a one-tier model', async () => {
    const rule = { name: 'r', productId, chargeId, tiers: [{ upTo: null, unitPriceCents: 900 }] };
    await refused('/admin/price-rules', rule, 'segment', 'required');
    await refused('/admin/price-rules', { ...rule, segment: null, locale: null }, 'partner', 'required');
    await refused(
      '/admin/price-rules',
      {
        ...rule,
        partner: 'x',
        chargeModel: 'per_unit',
        tiers: [
          { upTo: 5, unitPriceCents: 1 },
          { upTo: null, unitPriceCents: 1 },
        ],
      },
      'tiers',
      'maxItems',
    );
    await accepted('/admin/price-rules', { ...rule, locale: 'de-DE' });
  });

  it('plan-change rules: a product pair (both ids) or a family', async () => {
    const rule = { name: 'r', changeTiming: 'immediate', prorationType: 'prorated' };
    await refused('/admin/plan-change-rules', rule, 'family', 'required');
    await refused(
      '/admin/plan-change-rules',
      { ...rule, fromProductId: productId },
      'toProductId',
      'required',
    );
    await accepted('/admin/plan-change-rules', { ...rule, family: 'core', direction: 'upgrade' });
  });

  it('policy conditions: an object with exactly one operator of the engine', async () => {
    const policy = { name: 'p', type: 'order_create', effect: 'block' };
    await refused('/admin/policies', { ...policy, condition: {} }, 'condition', 'minProperties');
    await refused('/admin/policies', { ...policy, condition: { frobnicate: [1] } }, 'condition', 'enum');
    await refused('/admin/policies', { ...policy, condition: 'a > 1' }, 'condition', 'type');
    await accepted('/admin/policies', { ...policy, condition: { '>': [{ var: 'order.totalCents' }, 1000] } });
  });

  it('webhook events and the billing adapter are enums of what the server knows', async () => {
    const events = (doc as unknown as { paths: Record<string, { post: { requestBody: unknown } }> }).paths[
      '/api/v1/webhooks'
    ]?.post.requestBody as {
      content: { 'application/json': { schema: { properties: { events: { items: { enum: string[] } } } } } };
    };
    expect(events.content['application/json'].schema.properties.events.items.enum).toEqual([
      '*',
      ...EVENT_TYPE_NAMES,
    ]);
    const hook = { url: 'https://127.0.0.1/x' };
    await refused('/webhooks', { ...hook, events: ['order.shipped'] }, 'events.0', 'enum');
    await accepted('/webhooks', { ...hook, events: ['order.created'] });

    const put = (adapter: string) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/v1/admin/billing-integration',
        headers: bearer(tenant.keys.admin),
        payload: { adapter },
      });
    const where = pointer(
      'paths',
      '/api/v1/admin/billing-integration',
      'put',
      'requestBody',
      'content',
      'application/json',
    );
    const validate = ajv.getSchema(`openapi#/${where}/schema`);
    expect(validate?.({ adapter: 'stripe' })).toBe(false);
    const unknown = await put('stripe');
    expect(unknown.statusCode).toBe(400);
    expect(errorBody(unknown).details).toContainEqual(
      expect.objectContaining({ field: 'adapter', rule: 'enum' }),
    );
    expect(validate?.({ adapter: 'builtin' })).toBe(true);
    expect((await put('builtin')).statusCode).toBe(200);
  });
});
