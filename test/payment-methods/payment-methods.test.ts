import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { billingIntegrations } from '../../src/billing/tables.js';
import { tenantWhere } from '../../src/db/tenant-scope.js';
import { paymentMethods } from '../../src/modules/payment-methods/tables.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api, type Method as HttpMethod } from '../support/api.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UNKNOWN_ID = '0190f2a4-0000-7000-8000-000000000000';

type Json = Record<string, unknown>;
interface Method {
  id: string;
  accountId: string;
  type: string;
  cardType: string | null;
  lastFour: string;
  expirationMonth: number | null;
  expirationYear: number | null;
  isDefault: boolean;
  source: string;
  createdAt: string;
  updatedAt: string;
}
interface AuditEntry {
  action: string;
  resourceType: string;
  resourceId: string;
  details: Json | null;
}

let accountSeq = 0;
const newAccountId = (prefix = 'acct') => `${prefix}_${Date.now().toString(36)}_${++accountSeq}`;

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

const call = (
  method: string,
  path: string,
  key: string | null,
  payload?: object,
  headers: Record<string, string> = {},
) => api(t, key).send(method as HttpMethod, path, payload, { headers });

const create = async (body: Json, who: TestTenant = tenant) => {
  const res = await call('POST', '/payment-methods', who.keys.commerce, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as Method;
};

const read = async (id: string, who: TestTenant = tenant) => {
  const res = await call('GET', `/payment-methods/${id}`, who.keys.read);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Method;
};

const setDefault = (id: string, who: TestTenant = tenant) =>
  call('POST', `/payment-methods/${id}/set-default`, who.keys.commerce);

/** The account's references straight from the table: what every read path must agree with. */
const stored = (tenantId: string, accountId: string) =>
  t.deps.db
    .select()
    .from(paymentMethods)
    .where(tenantWhere(paymentMethods, tenantId, eq(paymentMethods.accountId, accountId)));

const defaultsOf = async (tenantId: string, accountId: string) =>
  (await stored(tenantId, accountId)).filter((r) => r.isDefault).map((r) => r.id);

const auditEntries = async (query: string, who: TestTenant = tenant) =>
  (await call('GET', `/audit-logs?${query}`, who.keys.admin)).json().data as AuditEntry[];

const methodActions = (m: { id: string; accountId: string }, canWrite: boolean) => [
  {
    rel: 'self',
    method: 'GET',
    href: `/api/v1/payment-methods/${m.id}`,
    requiredScope: 'read',
    allowed: true,
  },
  {
    rel: 'setDefault',
    method: 'POST',
    href: `/api/v1/payment-methods/${m.id}/set-default`,
    requiredScope: 'commerce',
    allowed: canWrite,
  },
  {
    rel: 'accountPaymentMethods',
    method: 'GET',
    href: `/api/v1/accounts/${m.accountId}/payment-methods`,
    requiredScope: 'read',
    allowed: true,
  },
];

describe('payment methods: create and read', () => {
  it('applies the defaults (type card, lastFour 0000): 201, the reference, nextActions, read back', async () => {
    const accountId = newAccountId();
    const res = await call('POST', '/payment-methods', tenant.keys.commerce, { accountId });
    expect(res.statusCode, res.body).toBe(201);
    const { data, nextActions } = res.json();
    expect(data).toEqual({
      id: expect.stringMatching(UUID),
      accountId,
      type: 'card',
      cardType: null,
      lastFour: '0000',
      expirationMonth: null,
      expirationYear: null,
      isDefault: true,
      source: 'local',
      createdAt: expect.stringMatching(ISO),
      updatedAt: data.createdAt,
    });
    expect(nextActions).toMatchObject(methodActions(data, true));

    const got = await call('GET', `/payment-methods/${data.id}`, tenant.keys.read);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(data);
    expect(got.json().nextActions).toMatchObject(methodActions(data, false));
  });

  it('stores every given field', async () => {
    const body = {
      accountId: newAccountId(),
      type: 'sepa_debit',
      cardType: 'visa',
      lastFour: '4242',
      expirationMonth: 12,
      expirationYear: 2031,
    };
    const method = await create(body);
    expect(method).toMatchObject({ ...body, isDefault: true, source: 'local' });
    expect(await read(method.id)).toEqual(method);
    const [row] = await stored(tenant.tenantId, body.accountId);
    expect(row).toMatchObject({ ...body, tenantId: tenant.tenantId, id: method.id });
  });

  it('a missing accountId is 400 naming accountId', async () => {
    const res = await call('POST', '/payment-methods', tenant.keys.commerce, { lastFour: '1234' });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).code).toBe('validation_failed');
    expect(errorBody(res).details).toMatchObject([
      { field: 'accountId', rule: 'required', message: 'accountId is required' },
    ]);
  });

  // [description, body patch, field at fault (null: valid), rule]
  const bounds: [string, Json, string | null, string?][] = [
    ['accountId at 64', { accountId: `b${'x'.repeat(63)}` }, null],
    ['accountId at 65', { accountId: `b${'x'.repeat(64)}` }, 'accountId', 'maxLength'],
    ['empty accountId', { accountId: '' }, 'accountId', 'minLength'],
    ['accountId with a space', { accountId: 'acct 1' }, 'accountId', 'pattern'],
    ['accountId with a slash', { accountId: 'acct/1' }, 'accountId', 'pattern'],
    ['accountId with _ and -', { accountId: 'Acct_1-x' }, null],
    ['accountId not a string', { accountId: 42 }, 'accountId', 'type'],
    ['lastFour 4 digits', { lastFour: '0042' }, null],
    ['lastFour 3 digits', { lastFour: '123' }, 'lastFour', 'pattern'],
    ['lastFour 5 digits', { lastFour: '12345' }, 'lastFour', 'pattern'],
    ['lastFour letters', { lastFour: 'abcd' }, 'lastFour', 'pattern'],
    ['lastFour a number', { lastFour: 1234 }, 'lastFour', 'type'],
    ['expirationMonth 1', { expirationMonth: 1 }, null],
    ['expirationMonth 12', { expirationMonth: 12 }, null],
    ['expirationMonth 0', { expirationMonth: 0 }, 'expirationMonth', 'minimum'],
    ['expirationMonth 13', { expirationMonth: 13 }, 'expirationMonth', 'maximum'],
    ['expirationMonth 1.5', { expirationMonth: 1.5 }, 'expirationMonth', 'type'],
    ['expirationMonth a string', { expirationMonth: '12' }, 'expirationMonth', 'type'],
    ['expirationMonth null', { expirationMonth: null }, null],
    ['expirationYear 2000', { expirationYear: 2000 }, null],
    ['expirationYear 2200', { expirationYear: 2200 }, null],
    ['expirationYear 1999', { expirationYear: 1999 }, 'expirationYear', 'minimum'],
    ['expirationYear 2201', { expirationYear: 2201 }, 'expirationYear', 'maximum'],
    ['type at 50', { type: 't'.repeat(50) }, null],
    ['type at 51', { type: 't'.repeat(51) }, 'type', 'maxLength'],
    ['empty type', { type: '' }, 'type', 'minLength'],
    ['cardType at 50', { cardType: 'c'.repeat(50) }, null],
    ['cardType at 51', { cardType: 'c'.repeat(51) }, 'cardType', 'maxLength'],
    ['empty cardType', { cardType: '' }, 'cardType', 'minLength'],
    ['cardType null', { cardType: null }, null],
    ['unknown field', { cardNumber: '4242424242424242' }, 'cardNumber', 'additionalProperties'],
  ];

  it('checks each bound at its edge; a 400 names the field and rule and writes nothing', async () => {
    const fresh = await createTestTenant(t.deps);
    for (const [label, patch, field, rule] of bounds) {
      const body = { accountId: newAccountId('bounds'), ...patch };
      const res = await call('POST', '/payment-methods', fresh.keys.commerce, body);
      if (field === null) {
        expect(res.statusCode, `${label}: ${res.body}`).toBe(201);
        const data = res.json().data as Method;
        expect(data, label).toMatchObject(patch);
        expect(await read(data.id, fresh), label).toEqual(data);
      } else {
        expect(res.statusCode, `${label}: ${res.body}`).toBe(400);
        expect(errorBody(res).code).toBe('validation_failed');
        // An empty accountId breaks both minLength and the pattern: each detail names the field.
        const details = errorBody(res).details ?? [];
        expect(details, label).toContainEqual(
          expect.objectContaining({ field, rule, message: expect.stringContaining(field) }),
        );
        expect(new Set(details.map((d) => d.field)), label).toEqual(new Set([field]));
      }
    }
    const valid = bounds.filter(([, , field]) => field === null).length;
    const [total] = await t.deps.db
      .select({ n: count() })
      .from(paymentMethods)
      .where(tenantWhere(paymentMethods, fresh.tenantId));
    expect(total?.n).toBe(valid);
    const audit = await auditEntries('action=payment_method.create', fresh);
    expect(audit).toHaveLength(valid);
  });

  it('a non-UUID id is 400 naming path.id; an unknown one is 404', async () => {
    const bad = await call('GET', '/payment-methods/pm_123', tenant.keys.read);
    expect(bad.statusCode).toBe(400);
    expect(errorBody(bad).details?.[0]).toMatchObject({ field: 'path.id', rule: 'format' });
    for (const res of [
      await call('GET', `/payment-methods/${UNKNOWN_ID}`, tenant.keys.read),
      await setDefault(UNKNOWN_ID),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(errorBody(res).code).toBe('not_found');
    }
  });

  it('replays a create with the same Idempotency-Key instead of storing it twice', async () => {
    const accountId = newAccountId('idem');
    const headers = { 'idempotency-key': `pm-${accountId}` };
    const first = await call('POST', '/payment-methods', tenant.keys.commerce, { accountId }, headers);
    const again = await call('POST', '/payment-methods', tenant.keys.commerce, { accountId }, headers);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['x-idempotency-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await stored(tenant.tenantId, accountId)).toHaveLength(1);
  });
});

describe('payment methods: defaults', () => {
  it('the first reference of an account becomes the default, the second does not', async () => {
    const accountId = newAccountId();
    const first = await create({ accountId, lastFour: '1111' });
    const second = await create({ accountId, lastFour: '2222' });
    expect(first.isDefault).toBe(true);
    expect(second.isDefault).toBe(false);
    expect((await read(first.id)).isDefault).toBe(true);
    expect((await read(second.id)).isDefault).toBe(false);
    // Accounts are independent, and so are tenants: the same account id elsewhere starts over.
    expect((await create({ accountId: newAccountId() })).isDefault).toBe(true);
    expect((await create({ accountId }, other)).isDefault).toBe(true);
    expect(await defaultsOf(tenant.tenantId, accountId)).toEqual([first.id]);
  });

  it('set-default switches the default and leaves exactly one', async () => {
    const accountId = newAccountId();
    const a = await create({ accountId, lastFour: '1111' });
    const b = await create({ accountId, lastFour: '2222' });
    const c = await create({ accountId, lastFour: '3333' });

    const res = await setDefault(b.id);
    expect(res.statusCode, res.body).toBe(200);
    const { data, nextActions } = res.json();
    expect(data).toEqual({ ...b, isDefault: true, updatedAt: expect.stringMatching(ISO) });
    expect(nextActions).toMatchObject(methodActions(b, true));
    expect(await read(b.id)).toEqual(data);
    expect((await read(a.id)).isDefault).toBe(false);
    expect((await read(c.id)).isDefault).toBe(false);
    expect(await defaultsOf(tenant.tenantId, accountId)).toEqual([b.id]);

    expect((await setDefault(c.id)).statusCode).toBe(200);
    expect(await defaultsOf(tenant.tenantId, accountId)).toEqual([c.id]);
    expect((await read(b.id)).isDefault).toBe(false);
  });

  it('set-default on the current default is 200 and changes nothing (no audit entry)', async () => {
    const accountId = newAccountId();
    const a = await create({ accountId });
    const res = await setDefault(a.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(a);
    expect(await read(a.id)).toEqual(a);
    expect(await auditEntries(`resourceId=${a.id}`)).toEqual([
      expect.objectContaining({ action: 'payment_method.create' }),
    ]);
  });

  it('20 concurrent set-default calls on different methods of one account leave exactly one default', async () => {
    const accountId = newAccountId('race');
    const methods: Method[] = [];
    for (let i = 0; i < 20; i++) methods.push(await create({ accountId, lastFour: String(1000 + i) }));
    const results = await Promise.all(methods.map((m) => setDefault(m.id)));
    expect(results.map((r) => r.statusCode)).toEqual(methods.map(() => 200));
    const defaults = await defaultsOf(tenant.tenantId, accountId);
    expect(defaults).toHaveLength(1);
    const reads = await Promise.all(methods.map((m) => read(m.id)));
    expect(reads.filter((m) => m.isDefault).map((m) => m.id)).toEqual(defaults);
  });

  it('10 concurrent creates on a new account leave exactly one default', async () => {
    const accountId = newAccountId('burst');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call('POST', '/payment-methods', tenant.keys.commerce, { accountId, lastFour: String(2000 + i) }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(results.map(() => 201));
    const created = results.map((r) => r.json().data as Method);
    expect(created.filter((m) => m.isDefault)).toHaveLength(1);
    expect(await stored(tenant.tenantId, accountId)).toHaveLength(10);
    expect(await defaultsOf(tenant.tenantId, accountId)).toEqual(
      created.filter((m) => m.isDefault).map((m) => m.id),
    );
  });
});

describe('payment methods: auth and isolation', () => {
  it('another tenant gets 404 on GET and set-default, and changes nothing', async () => {
    const accountId = newAccountId();
    const a = await create({ accountId });
    const b = await create({ accountId });
    const got = await call('GET', `/payment-methods/${b.id}`, other.keys.admin);
    expect(got.statusCode).toBe(404);
    expect(errorBody(got).code).toBe('not_found');
    const res = await call('POST', `/payment-methods/${b.id}/set-default`, other.keys.admin);
    expect(res.statusCode).toBe(404);
    expect(errorBody(res).code).toBe('not_found');
    expect(await defaultsOf(tenant.tenantId, accountId)).toEqual([a.id]);
    expect(await auditEntries(`resourceId=${b.id}`, other)).toEqual([]);
  });

  it('a read key may read but not create or set the default (403); no key is 401', async () => {
    const accountId = newAccountId();
    const a = await create({ accountId });
    const b = await create({ accountId });
    const post = await call('POST', '/payment-methods', tenant.keys.read, { accountId });
    expect(post.statusCode).toBe(403);
    expect(errorBody(post).code).toBe('forbidden');
    const set = await call('POST', `/payment-methods/${b.id}/set-default`, tenant.keys.read);
    expect(set.statusCode).toBe(403);
    expect(errorBody(set).code).toBe('forbidden');
    expect(await stored(tenant.tenantId, accountId)).toHaveLength(2);
    expect(await defaultsOf(tenant.tenantId, accountId)).toEqual([a.id]);
    for (const [method, path] of [
      ['POST', '/payment-methods'],
      ['GET', `/payment-methods/${a.id}`],
      ['POST', `/payment-methods/${b.id}/set-default`],
    ] as const) {
      const res = await call(method, path, null, method === 'POST' ? { accountId } : undefined);
      expect(res.statusCode, `${method} ${path}`).toBe(401);
    }
  });
});

describe('payment methods: audit', () => {
  it('records payment_method.create and payment_method.set_default with isDefault before and after', async () => {
    const accountId = newAccountId();
    const a = await create({ accountId });
    const b = await create({ accountId });
    expect((await setDefault(b.id)).statusCode).toBe(200);

    expect(await auditEntries(`resourceId=${a.id}`)).toEqual([
      expect.objectContaining({
        action: 'payment_method.create',
        resourceType: 'payment_method',
        resourceId: a.id,
        details: { accountId, isDefault: true },
      }),
    ]);
    const entries = await auditEntries(`resourceId=${b.id}`);
    expect(entries.map((e) => e.action)).toEqual(['payment_method.set_default', 'payment_method.create']);
    expect(entries[0]).toMatchObject({
      resourceType: 'payment_method',
      resourceId: b.id,
      details: {
        before: { isDefault: false },
        after: { isDefault: true },
        accountId,
        previousDefaultId: a.id,
      },
    });
    expect(entries[1]?.details).toMatchObject({ accountId, isDefault: false });
  });
});

describe('payment methods: GET /accounts/{id}/payment-methods', () => {
  let billed: TestTenant;
  let billingAccountId: string;
  let billingMethodId: string;

  beforeAll(async () => {
    billed = await createTestTenant(t.deps);
    await t.deps.db.insert(billingIntegrations).values({
      tenantId: billed.tenantId,
      adapter: 'builtin',
      config: {},
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const engine = new BuiltinBilling(t.deps.db, t.deps.clock, billed.tenantId);
    billingAccountId = (await engine.createAccount({ name: 'Globex', currency: 'USD' })).id;
    const pm = await engine.addPaymentMethod(billingAccountId, {
      type: 'card',
      cardType: 'visa',
      lastFour: '4242',
      expirationMonth: 12,
      expirationYear: 2031,
    });
    if (!pm.ok) throw new Error(pm.failure.message);
    billingMethodId = pm.value.id;
  });

  const list = (id: string, key = billed.keys.read) => call('GET', `/accounts/${id}/payment-methods`, key);

  const billingEntry = () => ({
    id: billingMethodId,
    type: 'card',
    cardType: 'visa',
    lastFour: '4242',
    expirationMonth: 12,
    expirationYear: 2031,
    isDefault: true,
    source: 'billing',
  });
  const localEntry = (m: Method) => ({
    id: m.id,
    type: m.type,
    cardType: m.cardType,
    lastFour: m.lastFour,
    expirationMonth: m.expirationMonth,
    expirationYear: m.expirationYear,
    isDefault: m.isDefault,
    source: 'local',
  });

  it('lists the billing system’s methods and the local references of both ids, with both sources', async () => {
    const res0 = await call('POST', '/accounts', billed.keys.commerce, {
      name: 'Globex (CRM)',
      externalId: billingAccountId,
    });
    expect(res0.statusCode).toBe(201);
    const org = res0.json().data as { id: string };

    const onBilling = await create(
      {
        accountId: billingAccountId,
        cardType: 'amex',
        lastFour: '0005',
        expirationMonth: 1,
        expirationYear: 2030,
      },
      billed,
    );
    const onBilling2 = await create({ accountId: billingAccountId, lastFour: '0006' }, billed);
    const onOrg = await create({ accountId: org.id, cardType: 'mastercard', lastFour: '5454' }, billed);
    const elsewhere = await create({ accountId: 'some-other-account' }, billed);
    // Another tenant's reference under the same account id is not listed.
    await create({ accountId: billingAccountId, lastFour: '9999' }, other);

    const direct = await list(billingAccountId);
    expect(direct.statusCode, direct.body).toBe(200);
    expect(direct.json().data).toEqual([billingEntry(), localEntry(onBilling2), localEntry(onBilling)]);
    expect(direct.json().nextActions).toMatchObject([
      {
        rel: 'addPaymentMethod',
        method: 'POST',
        href: '/api/v1/payment-methods',
        requiredScope: 'commerce',
        allowed: false,
      },
    ]);

    const viaOrg = await list(org.id);
    expect(viaOrg.statusCode, viaOrg.body).toBe(200);
    const data = viaOrg.json().data as { id: string; source: string; isDefault: boolean }[];
    expect(data[0]).toEqual(billingEntry());
    expect(data.slice(1)).toEqual([localEntry(onOrg), localEntry(onBilling2), localEntry(onBilling)]);
    expect(data.map((m) => m.id)).not.toContain(elsewhere.id);
    expect(new Set(data.map((m) => m.source))).toEqual(new Set(['billing', 'local']));

    // After set-default the listing shows the new local default.
    expect((await setDefault(onBilling2.id, billed)).statusCode).toBe(200);
    const after = (await list(billingAccountId)).json().data as { id: string; isDefault: boolean }[];
    expect(after.filter((m) => m.isDefault).map((m) => m.id)).toEqual([billingMethodId, onBilling2.id]);
  });

  it('keeps the sub-list rules: no integration is 404 even with local references; bad id format is 400', async () => {
    const accountId = newAccountId();
    await create({ accountId });
    const res = await call('GET', `/accounts/${accountId}/payment-methods`, tenant.keys.read);
    expect(res.statusCode).toBe(404);
    expect(errorBody(res).error).toContain('no active billing integration');

    await create({ accountId: 'not-a-billing-id' }, billed);
    const bad = await list('not-a-billing-id');
    expect(bad.statusCode).toBe(400);
    expect(errorBody(bad).details?.[0]).toMatchObject({ field: 'path.id', rule: 'format' });
  });
});

describe('payment methods: writes stay in their account', () => {
  it('only touches the rows of its own account', async () => {
    const accountId = newAccountId();
    const neighbour = newAccountId();
    await create({ accountId });
    const n = await create({ accountId: neighbour });
    const b = await create({ accountId });
    expect((await setDefault(b.id)).statusCode).toBe(200);
    const [row] = await t.deps.db
      .select()
      .from(paymentMethods)
      .where(tenantWhere(paymentMethods, tenant.tenantId, eq(paymentMethods.id, n.id)));
    expect(row?.isDefault).toBe(true);
    expect(row?.updatedAt.toISOString()).toBe(n.updatedAt);
  });
});
