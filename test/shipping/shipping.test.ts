import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface ShippingOption {
  id: string;
  name: string;
  amountCents: number;
  currency: string;
  countries: string[];
  minDays: number;
  maxDays: number;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

const ADMIN_PATH = '/api/v1/admin/shipping-options';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

const call = (method: Method, url: string, key: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });
const admin = (method: Method, suffix = '', payload?: object, key = tenant.keys.admin) =>
  call(method, `${ADMIN_PATH}${suffix}`, key, payload);

async function create(payload: object, key = tenant.keys.admin): Promise<ShippingOption> {
  const res = await admin('POST', '', payload, key);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

const adminActions = (id: string) => [
  { rel: 'self', method: 'GET', href: `${ADMIN_PATH}/${id}`, requiredScope: 'admin', allowed: true },
  { rel: 'update', method: 'PATCH', href: `${ADMIN_PATH}/${id}`, requiredScope: 'admin', allowed: true },
  { rel: 'delete', method: 'DELETE', href: `${ADMIN_PATH}/${id}`, requiredScope: 'admin', allowed: true },
  { rel: 'list', method: 'GET', href: ADMIN_PATH, requiredScope: 'admin', allowed: true },
];

describe('shipping options: admin CRUD', () => {
  it('creates, reads back, lists, updates and deletes an option', async () => {
    const res = await admin('POST', '', {
      name: 'Express',
      amountCents: 1500,
      currency: 'USD',
      countries: ['US', 'CA'],
      minDays: 1,
      maxDays: 2,
    });
    expect(res.statusCode).toBe(201);
    const created = res.json().data as ShippingOption;
    expect(created).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Express',
      amountCents: 1500,
      currency: 'USD',
      countries: ['US', 'CA'],
      minDays: 1,
      maxDays: 2,
      active: true,
      createdAt: expect.any(String),
      updatedAt: created.createdAt,
    });
    expect(Number.isNaN(Date.parse(created.createdAt))).toBe(false);
    expect(res.json().nextActions).toMatchObject(adminActions(created.id));

    const got = await admin('GET', `/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ data: created, nextActions: adminActions(created.id) });

    const list = await admin('GET');
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toContainEqual(created);
    expect(list.json().nextActions).toMatchObject([
      { rel: 'create', method: 'POST', href: ADMIN_PATH, requiredScope: 'admin', allowed: true },
    ]);

    const patched = await admin('PATCH', `/${created.id}`, {
      amountCents: 1200,
      countries: ['US'],
      active: false,
    });
    expect(patched.statusCode).toBe(200);
    const updated = patched.json().data as ShippingOption;
    expect(updated).toEqual({
      ...created,
      amountCents: 1200,
      countries: ['US'],
      active: false,
      updatedAt: expect.any(String),
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect((await admin('GET', `/${created.id}`)).json().data).toEqual(updated);

    const removed = await admin('DELETE', `/${created.id}`);
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    const gone = await admin('GET', `/${created.id}`);
    expect(gone.statusCode).toBe(404);
    expect(errorBody(gone)).toMatchObject({ code: 'not_found', error: 'Shipping option not found' });
    expect((await admin('DELETE', `/${created.id}`)).statusCode).toBe(404);
  });

  it('defaults countries to every country and active to true; accepts free shipping', async () => {
    const created = await create({
      name: 'Free pickup',
      amountCents: 0,
      currency: 'EUR',
      minDays: 0,
      maxDays: 0,
    });
    expect(created).toMatchObject({ amountCents: 0, countries: [], active: true, minDays: 0, maxDays: 0 });
    expect((await admin('GET', `/${created.id}`)).json().data).toEqual(created);
  });

  it('takes a client-chosen id, and answers 409 when it is taken', async () => {
    const id = randomUUID();
    const body = { id, name: 'Mirrored', amountCents: 900, currency: 'GBP', minDays: 2, maxDays: 4 };
    const created = await create(body);
    expect(created.id).toBe(id);
    expect((await admin('GET', `/${id}`)).json().data).toEqual(created);

    const again = await admin('POST', '', { ...body, name: 'Other' });
    expect(again.statusCode).toBe(409);
    expect(errorBody(again)).toMatchObject({
      code: 'conflict',
      details: [{ field: 'id', rule: 'unique' }],
    });
    expect((await admin('GET', `/${id}`)).json().data.name).toBe('Mirrored');

    // Ids are per tenant: another tenant may use the same one without learning about this one.
    const other = await createTestTenant(t.deps);
    const theirs = await create({ ...body, name: 'Theirs' }, other.keys.admin);
    expect(theirs.id).toBe(id);
    expect((await admin('GET', `/${id}`)).json().data.name).toBe('Mirrored');
  });

  it('allows a patch that keeps minDays <= maxDays by moving both bounds', async () => {
    const created = await create({
      name: 'Slow',
      amountCents: 100,
      currency: 'USD',
      minDays: 5,
      maxDays: 10,
    });
    const res = await admin('PATCH', `/${created.id}`, { minDays: 12, maxDays: 20 });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ minDays: 12, maxDays: 20 });
    const equal = await admin('PATCH', `/${created.id}`, { maxDays: 12 });
    expect(equal.statusCode).toBe(200);
    expect((await admin('GET', `/${created.id}`)).json().data).toMatchObject({ minDays: 12, maxDays: 12 });
  });
});

describe('shipping options: validation', () => {
  const valid = {
    name: 'Valid',
    amountCents: 500,
    currency: 'USD',
    countries: ['US'],
    minDays: 1,
    maxDays: 3,
  };

  it('rejects invalid create bodies naming the field, and stores nothing', async () => {
    const before = (await admin('GET')).json().data.length;
    const cases: [object, string, string][] = [
      [{ ...valid, countries: ['us'] }, 'countries.0', 'pattern'],
      [{ ...valid, countries: ['US', 'DE', 'US'] }, 'countries', 'uniqueItems'],
      [{ ...valid, countries: ['USA'] }, 'countries.0', 'pattern'],
      [{ ...valid, minDays: 5, maxDays: 2 }, 'maxDays', 'order'],
      [{ ...valid, currency: 'usd' }, 'currency', 'pattern'],
      [{ ...valid, currency: 'US' }, 'currency', 'pattern'],
      [{ ...valid, color: 'red' }, 'color', 'additionalProperties'],
      [{ ...valid, name: '' }, 'name', 'minLength'],
      [{ ...valid, amountCents: -1 }, 'amountCents', 'minimum'],
      [{ ...valid, amountCents: 1_000_000_001 }, 'amountCents', 'maximum'],
      [{ ...valid, amountCents: 1.5 }, 'amountCents', 'type'],
      [{ ...valid, maxDays: 366 }, 'maxDays', 'maximum'],
      [{ ...valid, minDays: -1 }, 'minDays', 'minimum'],
      [{ ...valid, id: 'not-a-uuid' }, 'id', 'format'],
      [{ name: 'x', amountCents: 1, currency: 'USD', minDays: 1 }, 'maxDays', 'required'],
    ];
    for (const [payload, field, rule] of cases) {
      const res = await admin('POST', '', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const body = errorBody(res);
      expect(body.code).toBe('validation_failed');
      expect(body.details?.[0], JSON.stringify(payload)).toMatchObject({ field, rule });
      expect(body.error).toContain(field);
    }
    const tooMany = Array.from({ length: 251 }, (_, i) => String.fromCharCode(65 + (i % 26)).repeat(2));
    const res = await admin('POST', '', { ...valid, countries: tooMany });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details).toContainEqual(
      expect.objectContaining({ field: 'countries', rule: 'maxItems' }),
    );
    expect((await admin('GET')).json().data.length).toBe(before);
  });

  it('rejects invalid patches naming the field, checking days against the stored values', async () => {
    const created = await create({ ...valid, minDays: 2, maxDays: 5 });
    const cases: [object, string, string][] = [
      [{ minDays: 6 }, 'maxDays', 'order'],
      [{ maxDays: 1 }, 'maxDays', 'order'],
      [{ minDays: 4, maxDays: 3 }, 'maxDays', 'order'],
      [{ countries: ['de'] }, 'countries.0', 'pattern'],
      [{ countries: ['DE', 'DE'] }, 'countries', 'uniqueItems'],
      [{ currency: 'euro' }, 'currency', 'pattern'],
      [{ id: randomUUID() }, 'id', 'additionalProperties'],
      [{ color: 'red' }, 'color', 'additionalProperties'],
      [{}, 'body', 'minProperties'],
    ];
    for (const [payload, field, rule] of cases) {
      const res = await admin('PATCH', `/${created.id}`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorBody(res).details?.[0], JSON.stringify(payload)).toMatchObject({ field, rule });
    }
    expect((await admin('GET', `/${created.id}`)).json().data).toEqual(created);
  });

  it('names the minDays/maxDays problem in the message', async () => {
    const res = await admin('POST', '', { ...valid, minDays: 7, maxDays: 3 });
    expect(errorBody(res)).toMatchObject({
      code: 'validation_failed',
      error: 'maxDays (3) must be greater than or equal to minDays (7)',
      details: [{ field: 'maxDays', rule: 'order' }],
    });
  });

  it('400 for a malformed id in the path', async () => {
    const res = await admin('GET', '/nope');
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details?.[0]).toMatchObject({ field: 'path.id', rule: 'format' });
  });
});

describe('shipping options: access', () => {
  it('needs the admin scope on every admin endpoint (403 for read and commerce keys)', async () => {
    const created = await create({
      name: 'Guarded',
      amountCents: 1,
      currency: 'USD',
      minDays: 1,
      maxDays: 1,
    });
    const body = { name: 'x', amountCents: 1, currency: 'USD', minDays: 1, maxDays: 1 };
    const requests: [Method, string, object?][] = [
      ['GET', ''],
      ['POST', '', body],
      ['GET', `/${created.id}`],
      ['PATCH', `/${created.id}`, { name: 'hijacked' }],
      ['DELETE', `/${created.id}`],
    ];
    for (const key of [tenant.keys.read, tenant.keys.commerce]) {
      for (const [method, suffix, payload] of requests) {
        const res = await admin(method, suffix, payload, key);
        expect(res.statusCode, `${method} ${suffix}`).toBe(403);
        expect(errorBody(res).code).toBe('forbidden');
      }
    }
    expect((await admin('GET', `/${created.id}`)).json().data).toEqual(created);
  });

  it('401 without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: ADMIN_PATH });
    expect(res.statusCode).toBe(401);
  });

  it('treats another tenant’s option as not found (404 on get, patch and delete)', async () => {
    const other = await createTestTenant(t.deps);
    const theirs = await create(
      { name: 'Theirs', amountCents: 300, currency: 'USD', minDays: 1, maxDays: 2 },
      other.keys.admin,
    );
    for (const [method, payload] of [['GET'], ['PATCH', { name: 'mine now' }], ['DELETE']] as [
      Method,
      object?,
    ][]) {
      const res = await admin(method, `/${theirs.id}`, payload);
      expect(res.statusCode, method).toBe(404);
      expect(errorBody(res).code).toBe('not_found');
    }
    expect((await admin('GET')).json().data.map((o: ShippingOption) => o.id)).not.toContain(theirs.id);
    const still = await admin('GET', `/${theirs.id}`, undefined, other.keys.admin);
    expect(still.json().data).toEqual(theirs);
  });
});

describe('shipping options: audit', () => {
  it('records create, update (with a diff) and delete', async () => {
    const own = await createTestTenant(t.deps);
    const created = await create(
      { name: 'Audited', amountCents: 700, currency: 'USD', countries: ['US'], minDays: 1, maxDays: 3 },
      own.keys.admin,
    );
    const patch = await admin('PATCH', `/${created.id}`, { countries: ['US', 'MX'] }, own.keys.admin);
    expect(patch.statusCode).toBe(200);
    expect((await admin('DELETE', `/${created.id}`, undefined, own.keys.admin)).statusCode).toBe(204);

    const res = await call(
      'GET',
      '/api/v1/audit-logs?resourceType=shipping_option&sort=createdAt',
      own.keys.admin,
    );
    expect(res.statusCode).toBe(200);
    const entries = res.json().data as {
      action: string;
      resourceType: string;
      resourceId: string;
      actor: { keyId: string };
      details: unknown;
    }[];
    expect(entries.map((e) => e.action)).toEqual([
      'shipping_option.create',
      'shipping_option.update',
      'shipping_option.delete',
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        resourceType: 'shipping_option',
        resourceId: created.id,
        actor: { keyId: own.keyIds.admin },
      });
    }
    expect(entries[1]?.details).toMatchObject({
      before: { countries: ['US'] },
      after: { countries: ['US', 'MX'] },
    });
    expect(res.json().pagination.total).toBe(3);
  });

  it('records nothing for a rejected write', async () => {
    const own = await createTestTenant(t.deps);
    const res = await admin(
      'POST',
      '',
      { name: 'Bad', amountCents: 1, currency: 'USD', minDays: 3, maxDays: 1 },
      own.keys.admin,
    );
    expect(res.statusCode).toBe(400);
    const audit = await call('GET', '/api/v1/audit-logs?resourceType=shipping_option', own.keys.admin);
    expect(audit.json().data).toEqual([]);
  });
});

describe('shipping options: GET /shipping-options', () => {
  let shop: TestTenant;
  const options: Record<string, ShippingOption> = {};

  beforeAll(async () => {
    shop = await createTestTenant(t.deps);
    const make = async (key: string, body: object) => {
      options[key] = await create(body, shop.keys.admin);
    };
    await make('express', {
      name: 'Express',
      amountCents: 1500,
      currency: 'USD',
      countries: ['US', 'CA'],
      minDays: 1,
      maxDays: 2,
    });
    await make('economy', { name: 'Economy', amountCents: 500, currency: 'USD', minDays: 5, maxDays: 10 });
    await make('budget', {
      name: 'Budget',
      amountCents: 500,
      currency: 'USD',
      countries: ['US'],
      minDays: 7,
      maxDays: 14,
    });
    await make('euPost', {
      name: 'EU Post',
      amountCents: 700,
      currency: 'EUR',
      countries: ['DE', 'FR'],
      minDays: 3,
      maxDays: 6,
    });
    await make('retired', {
      name: 'Retired',
      amountCents: 100,
      currency: 'USD',
      minDays: 1,
      maxDays: 1,
      active: false,
    });
    await make('paused', { name: 'Paused', amountCents: 200, currency: 'EUR', minDays: 1, maxDays: 1 });
    const pause = await admin('PATCH', `/${options.paused?.id}`, { active: false }, shop.keys.admin);
    expect(pause.statusCode).toBe(200);
    // Another tenant's active, everywhere-shipping option must never show up here.
    const other = await createTestTenant(t.deps);
    await create(
      { name: 'Foreign', amountCents: 1, currency: 'USD', minDays: 1, maxDays: 1 },
      other.keys.admin,
    );
  });

  const list = (query = '', key = shop.keys.read) => call('GET', `/api/v1/shipping-options${query}`, key);
  const names = (res: { json(): { data: ShippingOption[] } }) => res.json().data.map((o) => o.name);

  it('lists active options, cheapest first then by name, with hints, for a read key', async () => {
    const res = await list();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      data: [options.budget, options.economy, options.euPost, options.express],
      nextActions: [
        { rel: 'catalog', method: 'GET', href: '/api/v1/catalog', requiredScope: 'read', allowed: true },
        {
          rel: 'createCart',
          method: 'POST',
          href: '/api/v1/carts',
          requiredScope: 'commerce',
          allowed: false,
        },
      ],
    });
  });

  it('is cacheable per key', async () => {
    const res = await list();
    expect(res.headers['cache-control']).toBe('private, max-age=60');
    expect(res.headers.vary).toBe('Authorization');
  });

  it('filters by country, case-insensitively, including options that ship everywhere', async () => {
    expect(names(await list('?country=US'))).toEqual(['Budget', 'Economy', 'Express']);
    expect(names(await list('?country=us'))).toEqual(['Budget', 'Economy', 'Express']);
    expect(names(await list('?country=Ca'))).toEqual(['Economy', 'Express']);
    expect(names(await list('?country=de'))).toEqual(['Economy', 'EU Post']);
    expect(names(await list('?country=JP'))).toEqual(['Economy']);
  });

  it('filters by currency, and by both', async () => {
    expect(names(await list('?currency=EUR'))).toEqual(['EU Post']);
    expect(names(await list('?currency=USD'))).toEqual(['Budget', 'Economy', 'Express']);
    expect(names(await list('?currency=JPY'))).toEqual([]);
    expect(names(await list('?country=fr&currency=USD'))).toEqual(['Economy']);
    expect(names(await list('?country=FR&currency=EUR'))).toEqual(['EU Post']);
  });

  it('shows higher scopes the actions they may take', async () => {
    const res = await list('', shop.keys.commerce);
    expect(res.statusCode).toBe(200);
    expect(res.json().nextActions.map((a: { allowed: boolean }) => a.allowed)).toEqual([true, true]);
    expect((await list('', shop.keys.admin)).statusCode).toBe(200);
  });

  it('reflects admin changes: a reactivated option reappears', async () => {
    const id = options.retired?.id;
    expect((await admin('PATCH', `/${id}`, { active: true }, shop.keys.admin)).statusCode).toBe(200);
    expect(names(await list('?currency=USD'))).toEqual(['Retired', 'Budget', 'Economy', 'Express']);
    expect((await admin('PATCH', `/${id}`, { active: false }, shop.keys.admin)).statusCode).toBe(200);
    expect(names(await list('?currency=USD'))).toEqual(['Budget', 'Economy', 'Express']);
  });

  it('400 for bad query values and unknown parameters, naming them', async () => {
    const cases: [string, string, string][] = [
      ['?country=USA', 'query.country', 'pattern'],
      ['?country=1A', 'query.country', 'pattern'],
      ['?country=', 'query.country', 'pattern'],
      ['?currency=usd', 'query.currency', 'pattern'],
      ['?currency=EURO', 'query.currency', 'pattern'],
      ['?sort=name', 'query.sort', 'additionalProperties'],
    ];
    for (const [query, field, rule] of cases) {
      const res = await list(query);
      expect(res.statusCode, query).toBe(400);
      expect(errorBody(res).code).toBe('validation_failed');
      expect(errorBody(res).details?.[0], query).toMatchObject({ field, rule });
    }
  });

  it('401 without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/shipping-options' });
    expect(res.statusCode).toBe(401);
    expect(errorBody(res).code).toBe('unauthorized');
  });
});
