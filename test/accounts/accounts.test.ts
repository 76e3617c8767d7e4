import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { FaultController, withFaults } from '../../src/billing/faults.js';
import { billingIntegrations } from '../../src/billing/tables.js';
import { tenantWhere } from '../../src/db/tenant-scope.js';
import { listEvents } from '../../src/events/outbox.js';
import { organizations } from '../../src/modules/accounts/tables.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api, type Method } from '../support/api.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UNKNOWN_BILLING_ID = 'ba_00000000000000000000';

type Json = Record<string, unknown>;
interface Action {
  rel: string;
  method: string;
  href: string;
  requiredScope: string | null;
  allowed: boolean;
  reason?: string;
  arguments?: Record<string, unknown>;
}

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

const call = (method: string, path: string, key: string | null, payload?: object) =>
  api(t, key).send(method as Method, path, payload);

const create = async (body: Json, who: TestTenant = tenant) => {
  const res = await call('POST', '/accounts', who.keys.commerce, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as Json & { id: string };
};

const rowCount = async (tenantId: string) => {
  const [row] = await t.deps.db
    .select({ n: count() })
    .from(organizations)
    .where(tenantWhere(organizations, tenantId));
  return row?.n ?? 0;
};

const auditEntries = async (query: string) =>
  (await call('GET', `/audit-logs?${query}`, tenant.keys.admin)).json().data as {
    action: string;
    resourceType: string;
    resourceId: string;
    details: { before: Json; after: Json } | null;
  }[];

// The tenant has no billing integration: the billing sub-lists SPEC.md requires stay listed,
// refused with the reason (they could only answer 404).
const NO_BILLING = 'This tenant has no active billing integration, so the account has no billing data.';
const localActions = (id: string, allowedWrite: boolean): Action[] => {
  const billing = (rel: string, path: string) => ({
    rel,
    method: 'GET',
    href: `/api/v1/accounts/${id}/${path}`,
    requiredScope: 'read',
    allowed: false,
    reason: NO_BILLING,
  });
  return [
    { rel: 'self', method: 'GET', href: `/api/v1/accounts/${id}`, requiredScope: 'read', allowed: true },
    {
      rel: 'update',
      method: 'PATCH',
      href: `/api/v1/accounts/${id}`,
      requiredScope: 'commerce',
      allowed: allowedWrite,
    },
    {
      rel: 'createCart',
      method: 'POST',
      href: '/api/v1/carts',
      requiredScope: 'commerce',
      allowed: allowedWrite,
      arguments: { organizationId: id },
    },
    billing('invoices', 'invoices'),
    billing('subscriptions', 'subscriptions'),
    billing('paymentMethods', 'payment-methods'),
  ];
};

describe('accounts: create and read', () => {
  it('creates an account with every field: 201, the account, nextActions, read back', async () => {
    const body = {
      name: 'Acme Corp',
      externalId: 'crm-42',
      email: 'billing@acme.example',
      phone: '+1 555 0100',
      website: 'https://acme.example',
      industry: 'Manufacturing',
    };
    const res = await call('POST', '/accounts', tenant.keys.commerce, body);
    expect(res.statusCode).toBe(201);
    const { data, nextActions } = res.json();
    expect(Object.keys(data).sort()).toEqual(
      [
        'id',
        'tenantId',
        'name',
        'externalId',
        'email',
        'phone',
        'website',
        'industry',
        'tags',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    expect(data).toEqual({
      id: expect.stringMatching(UUID),
      tenantId: tenant.tenantId,
      ...body,
      tags: {},
      createdAt: expect.stringMatching(ISO),
      updatedAt: data.createdAt,
    });
    expect(nextActions).toMatchObject(localActions(data.id, true));

    const got = await call('GET', `/accounts/${data.id}`, tenant.keys.read);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(data);
    // A read key sees every rel, and is told it may not update.
    expect(got.json().nextActions).toMatchObject(localActions(data.id, false));
  });

  it('stores absent and null optional fields as null', async () => {
    const minimal = await create({ name: 'Minimal' });
    expect(minimal).toMatchObject({
      externalId: null,
      email: null,
      phone: null,
      website: null,
      industry: null,
    });
    const nulls = await create({
      name: 'Nulls',
      externalId: null,
      email: null,
      phone: null,
      website: null,
      industry: null,
    });
    expect(nulls).toMatchObject({
      externalId: null,
      email: null,
      phone: null,
      website: null,
      industry: null,
    });
    expect((await call('GET', `/accounts/${nulls.id}`, tenant.keys.read)).json().data).toEqual(nulls);
  });

  it('records an audit entry and an account.created event with the account', async () => {
    const account = await create({ name: 'Evented', industry: 'Retail' });
    const entries = await auditEntries(`resourceId=${account.id}`);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'account.create',
      resourceType: 'account',
      resourceId: account.id,
    });
    const events = await listEvents(t.deps.db, tenant.tenantId, 'account.created');
    expect(events.filter((e) => (e.payload as Json).id === account.id).map((e) => e.payload)).toEqual([
      account,
    ]);
  });

  it('answers 404 for an unknown uuid, an unknown billing-shaped id and any other id (no integration)', async () => {
    for (const id of ['0190f2a4-0000-7000-8000-000000000000', UNKNOWN_BILLING_ID, 'no-such-account']) {
      const res = await call('GET', `/accounts/${id}`, tenant.keys.read);
      expect(res.statusCode, id).toBe(404);
      expect(errorBody(res).code).toBe('not_found');
    }
  });

  it('looks up any id of up to 100 characters', async () => {
    const res = await call('GET', `/accounts/${'x'.repeat(100)}`, tenant.keys.read);
    expect(res.statusCode).toBe(404);
    expect(errorBody(res).code).toBe('not_found');
  });

  // Needs the router to accept path parameters past Fastify's default maxParamLength (100): without
  // it, ids of 101+ characters get the router's 414 before the schema is consulted.
  it('validates the path id length: 255 characters is looked up, 256 is 400 naming path.id', async () => {
    expect((await call('GET', `/accounts/${'x'.repeat(255)}`, tenant.keys.read)).statusCode).toBe(404);
    const res = await call('GET', `/accounts/${'x'.repeat(256)}`, tenant.keys.read);
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details?.[0]).toMatchObject({ field: 'path.id', rule: 'maxLength' });
  });
});

// [description, body, field at fault (null: valid), rule]
const s = (n: number, c = 'a') => c.repeat(n);
const emailOf = (length: number) => `${s(length - '@example.com'.length, 'e')}@example.com`;
const bounds: [string, Json, string | null, string?][] = [
  ['name at 255', { name: s(255) }, null],
  ['name at 256', { name: s(256) }, 'name', 'maxLength'],
  ['empty name', { name: '' }, 'name', 'minLength'],
  ['name not a string', { name: 5 }, 'name', 'type'],
  ['email format', { email: 'not-an-email' }, 'email', 'format'],
  ['email at 255', { email: emailOf(255) }, null],
  ['email at 256', { email: emailOf(256) }, 'email', 'maxLength'],
  ['phone at 50', { phone: s(50, '1') }, null],
  ['phone at 51', { phone: s(51, '1') }, 'phone', 'maxLength'],
  ['website at 500', { website: s(500, 'w') }, null],
  ['website at 501', { website: s(501, 'w') }, 'website', 'maxLength'],
  ['industry at 100', { industry: s(100, 'i') }, null],
  ['industry at 101', { industry: s(101, 'i') }, 'industry', 'maxLength'],
  ['unknown field', { surprise: 1 }, 'surprise', 'additionalProperties'],
];

describe('accounts: field bounds', () => {
  it('POST: each bound at its edge; a 400 names the field and rule', async () => {
    const cases: typeof bounds = [
      ...bounds,
      ['externalId at 255', { externalId: s(255, 'x') }, null],
      ['externalId at 256', { externalId: s(256, 'x') }, 'externalId', 'maxLength'],
    ];
    for (const [label, patch, field, rule] of cases) {
      const body = { name: 'Bounds', ...patch };
      const res = await call('POST', '/accounts', tenant.keys.commerce, body);
      if (field === null) {
        expect(res.statusCode, `${label}: ${res.body}`).toBe(201);
        const { id, ...data } = res.json().data;
        for (const [k, v] of Object.entries(patch)) expect(data[k], label).toBe(v);
        expect((await call('GET', `/accounts/${id}`, tenant.keys.read)).json().data, label).toMatchObject(
          patch,
        );
      } else {
        expect(res.statusCode, `${label}: ${res.body}`).toBe(400);
        expect(errorBody(res).code).toBe('validation_failed');
        expect(errorBody(res).details, label).toMatchObject([
          { field, rule, message: expect.stringContaining(field) },
        ]);
      }
    }
  });

  it('POST: name is required', async () => {
    const res = await call('POST', '/accounts', tenant.keys.commerce, { email: 'a@example.com' });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details).toMatchObject([
      { field: 'name', rule: 'required', message: 'name is required' },
    ]);
  });

  it('PATCH: each bound at its edge; externalId is not patchable; an empty body is 400', async () => {
    const account = await create({ name: 'Patch bounds', externalId: 'ext-1' });
    const cases: typeof bounds = [
      ...bounds,
      ['externalId', { externalId: 'ext-2' }, 'externalId', 'additionalProperties'],
    ];
    for (const [label, patch, field, rule] of cases) {
      const res = await call('PATCH', `/accounts/${account.id}`, tenant.keys.commerce, patch);
      if (field === null) {
        expect(res.statusCode, `${label}: ${res.body}`).toBe(200);
        expect(res.json().data, label).toMatchObject(patch);
      } else {
        expect(res.statusCode, `${label}: ${res.body}`).toBe(400);
        expect(errorBody(res).details, label).toMatchObject([
          { field, rule, message: expect.stringContaining(field) },
        ]);
      }
    }
    // SPEC.md: every field is optional. `{}` (or the values it has) is 200 with the account unchanged,
    // and records nothing: no audit entry, no event, the same updatedAt.
    const current = (await call('GET', `/accounts/${account.id}`, tenant.keys.read)).json().data;
    const auditBefore = (await auditEntries(`resourceId=${account.id}`)).length;
    const eventsBefore = (await listEvents(t.deps.db, tenant.tenantId, 'account.updated')).length;
    for (const patch of [{}, { name: current.name }]) {
      const res = await call('PATCH', `/accounts/${account.id}`, tenant.keys.commerce, patch);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual(current);
    }
    expect(await auditEntries(`resourceId=${account.id}`)).toHaveLength(auditBefore);
    expect(await listEvents(t.deps.db, tenant.tenantId, 'account.updated')).toHaveLength(eventsBefore);
    const got = (await call('GET', `/accounts/${account.id}`, tenant.keys.read)).json().data;
    expect(got.externalId).toBe('ext-1');
    expect(got.industry).toBe(s(100, 'i'));
  });

  it('a rejected POST writes no row, no event and no audit entry', async () => {
    const fresh = await createTestTenant(t.deps);
    for (const body of [{ name: '' }, { name: 'x', phone: s(51) }, { name: 'x', surprise: true }]) {
      const res = await call('POST', '/accounts', fresh.keys.commerce, body);
      expect(res.statusCode).toBe(400);
    }
    expect(await rowCount(fresh.tenantId)).toBe(0);
    expect(await listEvents(t.deps.db, fresh.tenantId)).toEqual([]);
    const audit = await call('GET', '/audit-logs?resourceType=account', fresh.keys.admin);
    expect(audit.json().data).toEqual([]);
  });
});

describe('accounts: one account per externalId', () => {
  const linkRefused = (res: Awaited<ReturnType<typeof call>>, externalId: string, holderId: string) => {
    expect(res.statusCode, res.body).toBe(409);
    expect(errorBody(res)).toMatchObject({
      code: 'conflict',
      error: expect.stringContaining(externalId),
      details: [{ field: 'externalId', rule: 'unique', message: expect.stringContaining(holderId) }],
    });
    expect(res.json().nextActions).toMatchObject([
      { rel: 'getAccount', method: 'GET', href: `/api/v1/accounts/${holderId}`, requiredScope: 'read' },
    ]);
  };

  it('a second account with the same externalId is 409 naming the first, writing nothing', async () => {
    const fresh = await createTestTenant(t.deps);
    const first = await create({ name: 'First', externalId: 'ba_dupdupdupdupdupdupd' }, fresh);
    const events = await listEvents(t.deps.db, fresh.tenantId);
    const second = await call('POST', '/accounts', fresh.keys.commerce, {
      name: 'Second',
      externalId: 'ba_dupdupdupdupdupdupd',
    });
    linkRefused(second, 'ba_dupdupdupdupdupdupd', first.id);
    expect(await rowCount(fresh.tenantId)).toBe(1);
    expect(await listEvents(t.deps.db, fresh.tenantId)).toEqual(events);
    const audit = await call('GET', '/audit-logs?resourceType=account', fresh.keys.admin);
    expect(audit.json().data.map((a: { resourceId: string }) => a.resourceId)).toEqual([first.id]);
    // Accounts without an externalId, or with another one, are not affected.
    await create({ name: 'No link' }, fresh);
    await create({ name: 'No link either', externalId: null }, fresh);
    await create({ name: 'Other link', externalId: 'crm-7' }, fresh);
    expect(await rowCount(fresh.tenantId)).toBe(4);
  });

  it('parallel creates with one externalId: exactly one succeeds', async () => {
    const fresh = await createTestTenant(t.deps);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call('POST', '/accounts', fresh.keys.commerce, { name: `Racer ${i}`, externalId: 'crm-race' }),
      ),
    );
    const created = answers.filter((a) => a.statusCode === 201);
    expect(created).toHaveLength(1);
    const winner = created[0]?.json().data.id as string;
    for (const refused of answers.filter((a) => a.statusCode !== 201))
      linkRefused(refused, 'crm-race', winner);
    expect(await rowCount(fresh.tenantId)).toBe(1);
    expect(await listEvents(t.deps.db, fresh.tenantId, 'account.created')).toHaveLength(1);
  });

  it('another tenant may use the same externalId', async () => {
    const mine = await create({ name: 'Mine', externalId: 'crm-shared' });
    const theirs = await create({ name: 'Theirs', externalId: 'crm-shared' }, other);
    expect(theirs.externalId).toBe('crm-shared');
    expect(theirs.id).not.toBe(mine.id);
  });
});

describe('accounts: update', () => {
  it('changes the given fields, reads back, audits only the changed fields and emits account.updated', async () => {
    const account = await create({ name: 'Before', email: 'old@example.com', phone: '1', industry: 'Old' });
    const res = await call('PATCH', `/accounts/${account.id}`, tenant.keys.commerce, {
      name: 'After',
      email: 'new@example.com',
      phone: null,
      industry: 'Old',
    });
    expect(res.statusCode).toBe(200);
    const { data, nextActions } = res.json();
    expect(data).toEqual({
      ...account,
      name: 'After',
      email: 'new@example.com',
      phone: null,
      updatedAt: expect.stringMatching(ISO),
    });
    expect(nextActions).toMatchObject(localActions(account.id, true));
    expect((await call('GET', `/accounts/${account.id}`, tenant.keys.read)).json().data).toEqual(data);

    const entries = await auditEntries(`resourceId=${account.id}`);
    expect(entries.map((e) => e.action)).toEqual(['account.update', 'account.create']);
    expect(entries[0]?.details).toMatchObject({
      before: { name: 'Before', email: 'old@example.com', phone: '1' },
      after: { name: 'After', email: 'new@example.com', phone: null },
    });

    const events = await listEvents(t.deps.db, tenant.tenantId, 'account.updated');
    expect(events.filter((e) => (e.payload as Json).id === account.id).map((e) => e.payload)).toEqual([data]);
  });

  it('answers 404 for ids that are not a tenant account, billing-shaped ones included', async () => {
    for (const id of ['0190f2a4-0000-7000-8000-000000000000', UNKNOWN_BILLING_ID, 'other']) {
      const res = await call('PATCH', `/accounts/${id}`, tenant.keys.commerce, { name: 'x' });
      expect(res.statusCode, id).toBe(404);
      expect(errorBody(res).code).toBe('not_found');
    }
  });
});

describe('accounts: auth and isolation', () => {
  it('a read key cannot create or update (403); no key is 401', async () => {
    const account = await create({ name: 'Guarded' });
    const post = await call('POST', '/accounts', tenant.keys.read, { name: 'x' });
    expect(post.statusCode).toBe(403);
    expect(errorBody(post).code).toBe('forbidden');
    const patch = await call('PATCH', `/accounts/${account.id}`, tenant.keys.read, { name: 'x' });
    expect(patch.statusCode).toBe(403);
    for (const [method, path, body] of [
      ['POST', '/accounts', { name: 'x' }],
      ['GET', `/accounts/${account.id}`, undefined],
      ['PATCH', `/accounts/${account.id}`, { name: 'x' }],
      ['GET', `/accounts/${account.id}/invoices`, undefined],
    ] as const) {
      const res = await call(method, path, null, body);
      expect(res.statusCode, `${method} ${path}`).toBe(401);
      expect(errorBody(res).code).toBe('unauthorized');
    }
    expect((await call('GET', `/accounts/${account.id}`, tenant.keys.read)).json().data.name).toBe('Guarded');
  });

  it('another tenant gets 404 on GET, PATCH and the sub-lists, with or without a billing integration', async () => {
    const account = await create({ name: 'Mine', externalId: 'ba_aaaaaaaaaaaaaaaaaaaa' });
    const outsider = await createTestTenant(t.deps);
    const paths = ['', '/invoices', '/subscriptions', '/payment-methods'];
    const check = async (who: TestTenant) => {
      for (const suffix of paths) {
        const res = await call('GET', `/accounts/${account.id}${suffix}`, who.keys.admin);
        expect(res.statusCode, suffix).toBe(404);
      }
      const patch = await call('PATCH', `/accounts/${account.id}`, who.keys.admin, { name: 'Theirs' });
      expect(patch.statusCode).toBe(404);
    };
    await check(other);
    await t.deps.db.insert(billingIntegrations).values({
      tenantId: outsider.tenantId,
      adapter: 'builtin',
      config: {},
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    await check(outsider);
    expect((await call('GET', `/accounts/${account.id}`, tenant.keys.read)).json().data.name).toBe('Mine');
  });
});

let billed: TestTenant;
let engine: BuiltinBilling;
let usd: { id: string };
let jpy: { id: string };
let empty: { id: string };
const invoiceIds: Record<string, string> = {};

// The billing-linked tenant of the three describes below, set up once for all of them.
let billedReady: Promise<void> | undefined;
const setUpBilled = () => (billedReady ??= setUpBilledOnce());
async function setUpBilledOnce() {
  billed = await createTestTenant(t.deps);
  await t.deps.db.insert(billingIntegrations).values({
    tenantId: billed.tenantId,
    adapter: 'builtin',
    config: {},
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  engine = new BuiltinBilling(t.deps.db, t.deps.clock, billed.tenantId);
  usd = await engine.createAccount({
    name: 'Globex',
    currency: 'USD',
    contacts: [{ name: 'Hank Scorpio', email: 'hank@globex.example', phone: '+1 555 0199' }],
  });
  jpy = await engine.createAccount({ name: 'Tokyo KK', currency: 'JPY' });
  empty = await engine.createAccount({ name: 'Nothing Yet', currency: 'EUR' });
  const invoice = async (key: string, accountId: string, currency: string, cents: number) => {
    const res = await engine.createInvoice({
      accountId,
      currency,
      lines: [{ description: `${key} line`, quantity: 1, unitAmountCents: cents }],
      idempotencyKey: key,
    });
    if (!res.ok) throw new Error(res.failure.message);
    invoiceIds[key] = res.value.id;
    return res.value;
  };
  const paid = await invoice('usd-paid', usd.id, 'USD', 1234);
  const partial = await invoice('usd-partial', usd.id, 'USD', 5000);
  await invoice('jpy', jpy.id, 'JPY', 12000);
  const settle = async (invoiceId: string, amountCents: number, key: string) => {
    const res = await engine.settleInvoice(invoiceId, {
      amountCents,
      currency: 'USD',
      paymentReference: key,
      idempotencyKey: key,
    });
    if (!res.ok) throw new Error(res.failure.message);
  };
  await settle(paid.id, 1234, 'pay-1');
  await settle(partial.id, 1766, 'pay-2');
  const sub = await engine.provisionSubscription({
    accountId: usd.id,
    productId: 'prod-1',
    productName: 'Pro plan',
    quantity: 3,
    priceCents: 2900,
    currency: 'USD',
    billingInterval: 'month',
    currentPeriodStart: '2030-01-01T00:00:00.000Z',
    currentPeriodEnd: '2030-02-01T00:00:00.000Z',
    invoiceFirstPeriod: false,
    idempotencyKey: 'sub-1',
  });
  if (!sub.ok) throw new Error(sub.failure.message);
  const pm = await engine.addPaymentMethod(usd.id, {
    type: 'card',
    cardType: 'visa',
    lastFour: '4242',
    expirationMonth: 12,
    expirationYear: 2031,
  });
  if (!pm.ok) throw new Error(pm.failure.message);
}

const get = (path: string, key = billed.keys.read) => call('GET', path, key);

describe('accounts: billing fall-through', () => {
  beforeAll(setUpBilled);

  it('GET /accounts/{billing id} falls through to the billing system, without an update action', async () => {
    const res = await get(`/accounts/${usd.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const { data, nextActions } = res.json();
    expect(data).toEqual({
      id: usd.id,
      source: 'billing',
      accountNumber: 'A-000001',
      name: 'Globex',
      currency: 'USD',
      balance: 32.34,
      balanceCents: 3234,
      contacts: [{ name: 'Hank Scorpio', email: 'hank@globex.example', phone: '+1 555 0199' }],
    });
    expect(nextActions.map((a: Action) => a.rel)).toEqual([
      'self',
      'invoices',
      'subscriptions',
      'paymentMethods',
    ]);
    expect(nextActions[0]).toMatchObject({
      rel: 'self',
      method: 'GET',
      href: `/api/v1/accounts/${usd.id}`,
      requiredScope: 'read',
      allowed: true,
    });
    expect(nextActions[1].href).toBe(`/api/v1/accounts/${usd.id}/invoices`);

    const yen = (await get(`/accounts/${jpy.id}`)).json().data;
    expect(yen).toMatchObject({ accountNumber: 'A-000002', balance: 12000, balanceCents: 12000 });
  });

  it('a billing account cannot be patched (404); an unknown well-formed billing id is 404', async () => {
    const patch = await call('PATCH', `/accounts/${usd.id}`, billed.keys.commerce, { name: 'x' });
    expect(patch.statusCode).toBe(404);
    const res = await get(`/accounts/${UNKNOWN_BILLING_ID}`);
    expect(res.statusCode).toBe(404);
    expect(errorBody(res).code).toBe('not_found');
    expect((await get('/accounts/ba_short')).statusCode).toBe(404);
  });

  it('another tenant’s billing account is not found', async () => {
    await t.deps.db
      .insert(billingIntegrations)
      .values({
        tenantId: other.tenantId,
        adapter: 'builtin',
        config: {},
        createdAt: new Date(),
        updatedAt: new Date(),
      })
      .onConflictDoNothing();
    for (const suffix of ['', '/invoices', '/subscriptions', '/payment-methods']) {
      expect((await get(`/accounts/${usd.id}${suffix}`, other.keys.read)).statusCode, suffix).toBe(404);
    }
  });
});

describe('accounts: billing sub-lists', () => {
  beforeAll(setUpBilled);

  it('lists invoices with decimal amounts and balances, and the createPaymentSession action', async () => {
    const res = await get(`/accounts/${usd.id}/invoices`);
    expect(res.statusCode, res.body).toBe(200);
    const { data, nextActions } = res.json();
    const byId = new Map((data as Json[]).map((i) => [i.id, i]));
    expect(data).toHaveLength(2);
    expect(byId.get(invoiceIds['usd-paid'])).toMatchObject({
      accountId: usd.id,
      invoiceNumber: expect.stringMatching(/^INV-\d{6}$/),
      invoiceDate: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      dueDate: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      amount: 12.34,
      balance: 0,
      amountCents: 1234,
      balanceCents: 0,
      currency: 'USD',
      status: 'paid',
      hostedInvoiceUrl: null,
      lines: [{ description: 'usd-paid line', quantity: 1, unitAmountCents: 1234, amountCents: 1234 }],
    });
    expect(byId.get(invoiceIds['usd-partial'])).toMatchObject({
      amount: 50,
      balance: 32.34,
      balanceCents: 3234,
      status: 'open',
    });
    expect(nextActions).toMatchObject([
      {
        rel: 'createPaymentSession',
        method: 'POST',
        href: '/api/v1/payments',
        requiredScope: 'commerce',
        allowed: false,
      },
    ]);
    const commerce = await get(`/accounts/${usd.id}/invoices`, billed.keys.commerce);
    expect(commerce.json().nextActions[0].allowed).toBe(true);

    const yen = (await get(`/accounts/${jpy.id}/invoices`)).json().data;
    expect(yen).toEqual([
      expect.objectContaining({ amount: 12000, balance: 12000, amountCents: 12000, currency: 'JPY' }),
    ]);
    expect((await get(`/accounts/${empty.id}/invoices`)).json().data).toEqual([]);
  });

  it('lists subscriptions with createSubscription and catalog actions', async () => {
    const res = await get(`/accounts/${usd.id}/subscriptions`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      {
        id: expect.stringMatching(/^bs_[0-9a-z]{20}$/),
        status: 'active',
        priceCents: 2900,
        currency: 'USD',
        billingInterval: 'month',
        productId: 'prod-1',
        productName: 'Pro plan',
        quantity: 3,
        currentPeriodStart: '2030-01-01T00:00:00.000Z',
        currentPeriodEnd: '2030-02-01T00:00:00.000Z',
      },
    ]);
    expect(res.json().nextActions).toMatchObject([
      {
        rel: 'createSubscription',
        method: 'POST',
        href: '/api/v1/subscriptions',
        requiredScope: 'commerce',
        allowed: false,
      },
      { rel: 'catalog', method: 'GET', href: '/api/v1/catalog', requiredScope: 'read', allowed: true },
    ]);
  });

  it('lists payment methods with the addPaymentMethod action', async () => {
    const res = await get(`/accounts/${usd.id}/payment-methods`, billed.keys.commerce);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      {
        id: expect.stringMatching(/^pm_[0-9a-z]{20}$/),
        type: 'card',
        cardType: 'visa',
        lastFour: '4242',
        expirationMonth: 12,
        expirationYear: 2031,
        isDefault: true,
        source: 'billing',
      },
    ]);
    expect(res.json().nextActions).toMatchObject([
      {
        rel: 'addPaymentMethod',
        method: 'POST',
        href: '/api/v1/payment-methods',
        requiredScope: 'commerce',
        allowed: true,
      },
    ]);
    expect((await get(`/accounts/${jpy.id}/payment-methods`)).json().data).toEqual([]);
  });

  it('a local account resolves the sub-lists only through an externalId that is a billing id', async () => {
    const linked = await create({ name: 'Globex (CRM)', externalId: usd.id }, billed);
    const unlinked = await create({ name: 'No billing' }, billed);
    const foreign = await create({ name: 'Other system', externalId: 'crm-123' }, billed);
    const dangling = await create({ name: 'Dangling', externalId: UNKNOWN_BILLING_ID }, billed);

    // GET of a local account is the local account, whatever its externalId.
    const local = await get(`/accounts/${linked.id}`);
    expect(local.json().data).toEqual(linked);
    expect(local.json().nextActions.map((a: Action) => a.rel)).toContain('update');

    const direct = (await get(`/accounts/${usd.id}/invoices`)).json().data;
    const via = await get(`/accounts/${linked.id}/invoices`);
    expect(via.statusCode).toBe(200);
    expect(via.json().data).toEqual(direct);
    expect((await get(`/accounts/${linked.id}/subscriptions`)).json().data).toHaveLength(1);
    expect((await get(`/accounts/${linked.id}/payment-methods`)).json().data).toHaveLength(1);

    for (const account of [unlinked, foreign, dangling]) {
      for (const list of ['invoices', 'subscriptions', 'payment-methods']) {
        const res = await get(`/accounts/${account.id}/${list}`);
        expect(res.statusCode, `${account.name} ${list}`).toBe(404);
        expect(errorBody(res).code).toBe('not_found');
      }
    }
  });

  it('an unknown well-formed billing id or unknown uuid is 404; an invalid id format is 400 naming path.id', async () => {
    for (const list of ['invoices', 'subscriptions', 'payment-methods']) {
      for (const id of [UNKNOWN_BILLING_ID, '0190f2a4-0000-7000-8000-000000000000']) {
        const res = await get(`/accounts/${id}/${list}`);
        expect(res.statusCode, `${id} ${list}`).toBe(404);
        expect(errorBody(res).code).toBe('not_found');
      }
      for (const id of ['not-an-id', 'ba_short', 'BA_AAAAAAAAAAAAAAAAAAAA', `${usd.id}x`]) {
        const res = await get(`/accounts/${id}/${list}`);
        expect(res.statusCode, `${id} ${list}`).toBe(400);
        expect(errorBody(res).code).toBe('validation_failed');
        expect(errorBody(res).details).toMatchObject([
          {
            field: 'path.id',
            rule: 'format',
            message: expect.stringContaining('billing account id format'),
          },
        ]);
      }
    }
  });

  it('without an active billing integration every sub-list is 404, even for well-formed ids', async () => {
    const local = await create({ name: 'Linked but no integration', externalId: usd.id });
    for (const list of ['invoices', 'subscriptions', 'payment-methods']) {
      for (const id of [usd.id, UNKNOWN_BILLING_ID, local.id, 'not-an-id']) {
        const res = await call('GET', `/accounts/${id}/${list}`, tenant.keys.read);
        expect(res.statusCode, `${id} ${list}`).toBe(404);
        expect(errorBody(res).code).toBe('not_found');
        expect(errorBody(res).error).toContain('no active billing integration');
      }
    }
    // Nor does GET fall through to a billing system the tenant has not integrated.
    expect((await call('GET', `/accounts/${usd.id}`, tenant.keys.read)).statusCode).toBe(404);
  });
});

describe('accounts: billing outage', () => {
  let faulty: TestApp;
  const faults = new FaultController();

  beforeAll(async () => {
    await setUpBilled();
    faulty = await startApp({ wrapBilling: (a) => withFaults(a, faults) });
  });
  afterAll(() => faulty.app.close());

  const fget = (path: string) =>
    faulty.app.inject({ method: 'GET', url: `/api/v1${path}`, headers: bearer(billed.keys.read) });

  it('answers 502 billing_unavailable on the fall-through and the sub-lists; local accounts still work', async () => {
    expect((await fget(`/accounts/${usd.id}`)).statusCode).toBe(200);
    faults.failAll = true;
    try {
      const linked = await create({ name: 'Outage linked', externalId: jpy.id }, billed);
      const paths = [
        `/accounts/${usd.id}`,
        ...['invoices', 'subscriptions', 'payment-methods'].flatMap((l) => [
          `/accounts/${usd.id}/${l}`,
          `/accounts/${linked.id}/${l}`,
        ]),
      ];
      for (const path of paths) {
        const res = await fget(path);
        expect(res.statusCode, path).toBe(502);
        expect(errorBody(res).code).toBe('billing_unavailable');
      }
      expect(faults.calls).toEqual(
        expect.arrayContaining(['getAccount', 'listInvoices', 'listSubscriptions', 'listPaymentMethods']),
      );

      const post = await faulty.app.inject({
        method: 'POST',
        url: '/api/v1/accounts',
        headers: bearer(billed.keys.commerce),
        payload: { name: 'Created during outage', externalId: empty.id },
      });
      expect(post.statusCode).toBe(201);
      const local = await fget(`/accounts/${post.json().data.id}`);
      expect(local.statusCode).toBe(200);
      expect(local.json().data.name).toBe('Created during outage');
      // Still answered from local data and the id check: no adapter I/O.
      expect((await fget('/accounts/not-an-id/invoices')).statusCode).toBe(400);
    } finally {
      faults.reset();
    }
    expect((await fget(`/accounts/${usd.id}/invoices`)).statusCode).toBe(200);
  });
});
