import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { AppError } from '../../src/core/errors.js';
import { assertAllowed, evaluatePolicies, type PolicyEvaluation } from '../../src/modules/policies/index.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';

const OVER_A_MILLION = { '>': [{ var: 'order.totalCents' }, 1_000_000] };
const BLOCKED_PARTNER = { '==': [{ var: 'customerContext.partner' }, 'blocked-partner'] };
const ENTERPRISE = { '==': [{ var: 'customerContext.segment' }, 'enterprise'] };
const DOWNGRADE = { '==': [{ var: 'direction' }, 'downgrade'] };

/** An order_create input as docs/policies.md describes it. */
function orderInput(totalCents: number, customer: { segment?: string; partner?: string } = {}) {
  return {
    order: {
      items: [{ productId: randomUUID(), quantity: 1, priceCents: totalCents }],
      totalCents,
      currency: 'USD',
      contactId: randomUUID(),
      organizationId: null,
      journeyId: null,
    },
    customerContext: {
      segment: customer.segment ?? null,
      locale: 'en-US',
      partner: customer.partner ?? null,
    },
  };
}

/** `{"!": [{"!": [... {"var": "x"} ...]}]}`, `levels` operators deep. */
function deeplyNested(levels: number): object {
  let condition: object = { var: 'x' };
  for (let i = 0; i < levels; i++) condition = { '!': [condition] };
  return condition;
}

let t: TestApp;
let tenant: TestTenant;
// Policies are evaluated oldest first: a moving clock makes that order explicit.
const clock = new ManualClock(new Date('2030-05-01T09:00:00.000Z'));

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

const call = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url = '',
  payload?: object,
  key = tenant.keys.admin,
) => {
  clock.advance(1_000);
  return t.app.inject({
    method,
    url: `/api/v1/admin/policies${url}`,
    headers: bearer(key),
    ...(payload !== undefined ? { payload } : {}),
  });
};

const create = async (body: object, key = tenant.keys.admin) => {
  const res = await call('POST', '', body, key);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; name: string };
};

describe('policies: admin CRUD', () => {
  it('creates, reads, lists, updates and deletes a policy', async () => {
    const res = await call('POST', '', {
      name: 'Large orders need review',
      type: 'order_create',
      condition: OVER_A_MILLION,
      effect: 'block',
    });
    expect(res.statusCode).toBe(201);
    const { data, nextActions } = res.json();
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Large orders need review',
      type: 'order_create',
      condition: OVER_A_MILLION,
      effect: 'block',
      active: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(data.updatedAt).toBe(data.createdAt);
    expect(nextActions.map((a: { rel: string; method: string; href: string }) => a)).toEqual([
      expect.objectContaining({ rel: 'self', method: 'GET', href: `/api/v1/admin/policies/${data.id}` }),
      expect.objectContaining({
        rel: 'update',
        method: 'PATCH',
        href: `/api/v1/admin/policies/${data.id}`,
      }),
      expect.objectContaining({
        rel: 'delete',
        method: 'DELETE',
        href: `/api/v1/admin/policies/${data.id}`,
      }),
      expect.objectContaining({ rel: 'list', method: 'GET', href: '/api/v1/admin/policies' }),
    ]);

    const got = await call('GET', `/${data.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(data);

    const list = await call('GET');
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toContainEqual(data);

    const patched = await call('PATCH', `/${data.id}`, {
      name: 'Downgrades are blocked',
      type: 'plan_change',
      condition: DOWNGRADE,
      active: false,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toEqual({
      ...data,
      name: 'Downgrades are blocked',
      type: 'plan_change',
      condition: DOWNGRADE,
      active: false,
      updatedAt: expect.any(String),
    });
    expect(Date.parse(patched.json().data.updatedAt)).toBeGreaterThan(Date.parse(data.updatedAt));
    const readBack = await call('GET', `/${data.id}`);
    expect(readBack.json().data).toEqual(patched.json().data);

    const effectOnly = await call('PATCH', `/${data.id}`, { effect: 'allow' });
    expect(effectOnly.statusCode).toBe(200);
    expect(effectOnly.json().data).toMatchObject({ effect: 'allow', name: 'Downgrades are blocked' });

    const removed = await call('DELETE', `/${data.id}`);
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    expect((await call('GET', `/${data.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/${data.id}`)).statusCode).toBe(404);
    const after = await call('GET');
    expect(after.json().data.map((p: { id: string }) => p.id)).not.toContain(data.id);
  });

  it('takes a client-chosen id once; the same id again is 409', async () => {
    const id = randomUUID();
    const body = {
      id,
      name: 'Partner ban',
      type: 'order_create',
      condition: BLOCKED_PARTNER,
      effect: 'block',
    };
    const first = await call('POST', '', body);
    expect(first.statusCode).toBe(201);
    expect(first.json().data.id).toBe(id);

    const again = await call('POST', '', { ...body, name: 'Another' });
    expect(again.statusCode).toBe(409);
    const err = errorBody(again);
    expect(err.code).toBe('conflict');
    expect(err.details).toMatchObject([
      { field: 'id', rule: 'unique', message: expect.stringContaining(id) },
    ]);
    expect((await call('GET', `/${id}`)).json().data.name).toBe('Partner ban');

    // Ids are per tenant: another tenant may use the same one, and learns nothing about ours.
    const other = await createTestTenant(t.deps);
    const theirs = await call('POST', '', { ...body, name: 'Theirs' }, other.keys.admin);
    expect(theirs.statusCode).toBe(201);
    expect((await call('GET', `/${id}`)).json().data.name).toBe('Partner ban');
  });
});

describe('policies: admin CRUD refusals, scopes, tenancy and audit', () => {
  it('rejects invalid bodies naming the field and the rule', async () => {
    const valid = { name: 'p', type: 'order_create', condition: OVER_A_MILLION, effect: 'block' };
    const cases: [object, string, string][] = [
      [{ ...valid, type: 'order_delete' }, 'type', 'enum'],
      [{ ...valid, effect: 'deny' }, 'effect', 'enum'],
      [{ ...valid, name: '' }, 'name', 'minLength'],
      [{ ...valid, id: 'not-a-uuid' }, 'id', 'format'],
      [{ ...valid, priority: 1 }, 'priority', 'additionalProperties'],
      [{ name: 'p', type: 'order_create', effect: 'block' }, 'condition', 'required'],
      // The shape the document states (an object with one operator of the engine) is the schema's.
      [{ ...valid, condition: true }, 'condition', 'type'],
      [{ ...valid, condition: 'order.totalCents > 5' }, 'condition', 'type'],
      [{ ...valid, condition: [OVER_A_MILLION] }, 'condition', 'type'],
      [{ ...valid, condition: null }, 'condition', 'type'],
      [{ ...valid, condition: {} }, 'condition', 'minProperties'],
      [{ ...valid, condition: { frobnicate: [1, 2] } }, 'condition', 'enum'],
      [{ ...valid, condition: { and: [OVER_A_MILLION, { frobnicate: [] }] } }, 'condition', 'jsonlogic'],
      [{ ...valid, condition: { ...OVER_A_MILLION, ...DOWNGRADE } }, 'condition', 'maxProperties'],
      // Operators reached through Object.prototype are not operators.
      [{ ...valid, condition: { constructor: [1] } }, 'condition', 'enum'],
      [{ ...valid, condition: { toString: [] } }, 'condition', 'enum'],
      [{ ...valid, condition: deeplyNested(40) }, 'condition', 'maxDepth'],
      // Input-independent parts are evaluated when the condition is built.
      [{ ...valid, condition: { '/': [1, 0] } }, 'condition', 'jsonlogic'],
    ];
    const before = (await call('GET')).json().data.length;
    for (const [payload, field, rule] of cases) {
      const res = await call('POST', '', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const err = errorBody(res);
      expect(err.code).toBe('validation_failed');
      expect(err.details?.[0], JSON.stringify(payload)).toMatchObject({ field, rule });
    }
    // Far deeper than the call stack: still a 400, not a crash.
    const deep = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/policies',
      headers: { ...bearer(tenant.keys.admin), 'content-type': 'application/json' },
      payload: `{"name":"p","type":"order_create","effect":"block","condition":{"!":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`,
    });
    expect(deep.statusCode).toBe(400);
    expect(errorBody(deep).details?.[0]).toMatchObject({ field: 'condition', rule: 'maxDepth' });
    const unknownOp = errorBody(await call('POST', '', { ...valid, condition: { frobnicate: [1] } }));
    expect(unknownOp.error).toContain('condition key "frobnicate" must be one of: ');
    const nestedUnknown = { and: [OVER_A_MILLION, { frobnicate: [1] }] };
    const nested = errorBody(await call('POST', '', { ...valid, condition: nestedUnknown }));
    expect(nested.error).toContain('unknown operator "frobnicate"');
    expect((await call('GET')).json().data.length).toBe(before);
  });

  it('rejects invalid updates and leaves the policy unchanged', async () => {
    const policy = await create({
      name: 'keep me',
      type: 'order_create',
      condition: OVER_A_MILLION,
      effect: 'block',
    });
    const cases: [object, string, string][] = [
      [{}, 'body', 'minProperties'],
      [{ condition: { frobnicate: [] } }, 'condition', 'enum'],
      [{ condition: 42 }, 'condition', 'type'],
      [{ type: 'refund' }, 'type', 'enum'],
      [{ active: 'yes' }, 'active', 'type'],
      [{ tenantId: randomUUID() }, 'tenantId', 'additionalProperties'],
    ];
    for (const [payload, field, rule] of cases) {
      const res = await call('PATCH', `/${policy.id}`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorBody(res).details?.[0], JSON.stringify(payload)).toMatchObject({ field, rule });
    }
    const readBack = (await call('GET', `/${policy.id}`)).json().data;
    expect(readBack).toMatchObject({ name: 'keep me', condition: OVER_A_MILLION, type: 'order_create' });
  });

  it('needs the admin scope: read and commerce keys get 403', async () => {
    const policy = await create({ name: 'p', type: 'order_create', condition: DOWNGRADE, effect: 'block' });
    const body = { name: 'x', type: 'order_create', condition: DOWNGRADE, effect: 'block' };
    for (const key of [tenant.keys.read, tenant.keys.commerce]) {
      const attempts = [
        await call('GET', '', undefined, key),
        await call('POST', '', body, key),
        await call('GET', `/${policy.id}`, undefined, key),
        await call('PATCH', `/${policy.id}`, { name: 'y' }, key),
        await call('DELETE', `/${policy.id}`, undefined, key),
      ];
      for (const res of attempts) {
        expect(res.statusCode).toBe(403);
        expect(errorBody(res).code).toBe('forbidden');
      }
    }
    expect((await call('GET', `/${policy.id}`)).json().data.name).toBe('p');
  });

  it('another tenant’s policy id is 404 on get, update and delete', async () => {
    const other = await createTestTenant(t.deps);
    const theirs = await create(
      { name: 'theirs', type: 'order_create', condition: DOWNGRADE, effect: 'block' },
      other.keys.admin,
    );
    const attempts = [
      await call('GET', `/${theirs.id}`),
      await call('PATCH', `/${theirs.id}`, { name: 'mine now' }),
      await call('DELETE', `/${theirs.id}`),
    ];
    for (const res of attempts) {
      expect(res.statusCode).toBe(404);
      expect(errorBody(res).code).toBe('not_found');
    }
    expect((await call('GET')).json().data.map((p: { id: string }) => p.id)).not.toContain(theirs.id);
    const still = await call('GET', `/${theirs.id}`, undefined, other.keys.admin);
    expect(still.json().data.name).toBe('theirs');
  });

  it('records audit entries for create, update and delete', async () => {
    const policy = await create({
      name: 'audited',
      type: 'order_update',
      condition: DOWNGRADE,
      effect: 'block',
    });
    await call('PATCH', `/${policy.id}`, { name: 'audited twice', active: false });
    await call('DELETE', `/${policy.id}`);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/audit-logs?resourceType=policy&resourceId=${policy.id}`,
      headers: bearer(tenant.keys.admin),
    });
    expect(res.statusCode).toBe(200);
    const entries = res.json().data as { action: string; resourceType: string; details: unknown }[];
    expect(entries.map((e) => e.action)).toEqual(['policy.delete', 'policy.update', 'policy.create']);
    expect(entries.every((e) => e.resourceType === 'policy')).toBe(true);
    expect(entries[1]?.details).toMatchObject({
      before: { name: 'audited', active: true },
      after: { name: 'audited twice', active: false },
    });
  });
});

describe('policies: evaluatePolicies', () => {
  let fresh: TestTenant;

  beforeAll(async () => {
    fresh = await createTestTenant(t.deps);
  });

  /** A new tenant per case, so each case sees only its own policies. */
  const scenario = async (...defs: { name: string; type?: string; condition: object; effect: string }[]) => {
    const owner = await createTestTenant(t.deps);
    const ids: string[] = [];
    for (const def of defs) {
      ids.push((await create({ type: 'order_create', ...def }, owner.keys.admin)).id);
    }
    return { tenantId: owner.tenantId, keys: owner.keys, ids };
  };
  const evaluate = (tenantId: string, input: object, type: 'order_create' | 'plan_change' = 'order_create') =>
    evaluatePolicies(t.deps.db, tenantId, type, input);

  it('allows when the tenant has no policies', async () => {
    expect(await evaluate(fresh.tenantId, orderInput(5_000_000))).toEqual({
      allowed: true,
      evaluations: [],
    });
  });

  it('a matching block policy blocks; a non-matching one is not_applicable', async () => {
    const s = await scenario({ name: 'Over a million', condition: OVER_A_MILLION, effect: 'block' });
    expect(await evaluate(s.tenantId, orderInput(1_000_001))).toEqual({
      allowed: false,
      evaluations: [
        {
          policyId: s.ids[0],
          policyName: 'Over a million',
          policyType: 'order_create',
          effect: 'block',
          result: 'block',
        },
      ],
    });
    expect(await evaluate(s.tenantId, orderInput(1_000_000))).toEqual({
      allowed: true,
      evaluations: [expect.objectContaining({ policyId: s.ids[0], result: 'not_applicable' })],
    });
  });

  it('a matching allow policy is an exception that overrides blocks', async () => {
    const s = await scenario(
      { name: 'Over a million', condition: OVER_A_MILLION, effect: 'block' },
      { name: 'Blocked partner', condition: BLOCKED_PARTNER, effect: 'block' },
      { name: 'Enterprise exception', condition: ENTERPRISE, effect: 'allow' },
    );
    const blocked = await evaluate(s.tenantId, orderInput(2_000_000, { partner: 'blocked-partner' }));
    expect(blocked.allowed).toBe(false);
    expect(blocked.evaluations.map((e) => [e.policyId, e.result])).toEqual([
      [s.ids[0], 'block'],
      [s.ids[1], 'block'],
      [s.ids[2], 'not_applicable'],
    ]);

    const excepted = await evaluate(
      s.tenantId,
      orderInput(2_000_000, { partner: 'blocked-partner', segment: 'enterprise' }),
    );
    expect(excepted.allowed).toBe(true);
    expect(excepted.evaluations.map((e) => e.result)).toEqual(['block', 'block', 'allow']);

    const plain = await evaluate(s.tenantId, orderInput(10_000));
    expect(plain.allowed).toBe(true);
    expect(plain.evaluations.map((e) => e.result)).toEqual([
      'not_applicable',
      'not_applicable',
      'not_applicable',
    ]);
  });

  it('ignores inactive policies, other types and other tenants', async () => {
    const s = await scenario(
      { name: 'Inactive', condition: OVER_A_MILLION, effect: 'block' },
      { name: 'Plan change only', type: 'plan_change', condition: { '!!': [true] }, effect: 'block' },
      { name: 'Active', condition: BLOCKED_PARTNER, effect: 'block' },
    );
    const off = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/policies/${s.ids[0]}`,
      headers: bearer(s.keys.admin),
      payload: { active: false },
    });
    expect(off.statusCode).toBe(200);
    const other = await scenario({ name: 'Other tenant', condition: OVER_A_MILLION, effect: 'block' });

    const result = await evaluate(s.tenantId, orderInput(5_000_000));
    expect(result).toEqual({
      allowed: true,
      evaluations: [expect.objectContaining({ policyId: s.ids[2], result: 'not_applicable' })],
    });
    expect((await evaluate(other.tenantId, orderInput(5_000_000))).allowed).toBe(false);

    const planChange = await evaluate(s.tenantId, { direction: 'upgrade' }, 'plan_change');
    expect(planChange.evaluations.map((e) => [e.policyId, e.policyType, e.result])).toEqual([
      [s.ids[1], 'plan_change', 'block'],
    ]);
  });

  it('evaluates a plan_change input: downgrades blocked, upgrades not', async () => {
    const s = await scenario({
      name: 'No downgrades',
      type: 'plan_change',
      condition: DOWNGRADE,
      effect: 'block',
    });
    const product = (rank: number) => ({
      id: randomUUID(),
      name: `Plan ${rank}`,
      family: 'team',
      rank,
      priceCents: rank * 1000,
    });
    const input = (direction: string) => ({
      subscription: { id: randomUUID(), productId: randomUUID(), quantity: 3, status: 'active' },
      currentProduct: product(2),
      targetProduct: product(direction === 'downgrade' ? 1 : 3),
      direction,
    });
    expect((await evaluate(s.tenantId, input('downgrade'), 'plan_change')).allowed).toBe(false);
    expect((await evaluate(s.tenantId, input('upgrade'), 'plan_change')).allowed).toBe(true);
  });

  it('the other documented examples behave as docs/policies.md says', async () => {
    const bulk = { some: [{ var: 'order.items' }, { '>': [{ var: 'quantity' }, 100] }] };
    const activeDowngrade = {
      and: [
        { '==': [{ var: 'direction' }, 'downgrade'] },
        { '==': [{ var: 'subscription.status' }, 'active'] },
      ],
    };
    const s = await scenario(
      { name: 'Bulk lines', condition: bulk, effect: 'block' },
      { name: 'No downgrades', type: 'plan_change', condition: activeDowngrade, effect: 'block' },
    );
    const order = orderInput(500);
    expect((await evaluate(s.tenantId, order)).allowed).toBe(true);
    order.order.items.push({ productId: randomUUID(), quantity: 101, priceCents: 1 });
    expect((await evaluate(s.tenantId, order)).allowed).toBe(false);

    const change = (status: string) => ({ subscription: { status }, direction: 'downgrade' });
    expect((await evaluate(s.tenantId, change('active'), 'plan_change')).allowed).toBe(false);
    expect((await evaluate(s.tenantId, change('trialing'), 'plan_change')).allowed).toBe(true);
  });

  it('fails closed: a condition that throws at run time counts as block, whatever its effect', async () => {
    // Average line value: dividing by the number of lines throws when there are none.
    const average = {
      '>': [{ '/': [{ var: 'order.totalCents' }, { var: 'order.items.length' }] }, 500_000],
    };
    const s = await scenario(
      { name: 'Expensive lines', condition: average, effect: 'block' },
      { name: 'Broken exception', condition: average, effect: 'allow' },
    );
    const fine = await evaluate(s.tenantId, orderInput(100));
    expect(fine.allowed).toBe(true);
    expect(fine.evaluations.map((e) => e.result)).toEqual(['not_applicable', 'not_applicable']);

    const empty = orderInput(100);
    empty.order.items = [];
    const result = await evaluate(s.tenantId, empty);
    expect(result.allowed).toBe(false);
    expect(result.evaluations.map((e) => [e.effect, e.result])).toEqual([
      ['block', 'block'],
      ['allow', 'block'],
    ]);
  });

  it('conditions see a plain-JSON copy of the input and cannot reach functions', async () => {
    const s = await scenario(
      {
        name: 'Dates are strings',
        condition: { '==': [{ var: 'at' }, '2030-01-01T00:00:00.000Z'] },
        effect: 'block',
      },
      { name: 'No functions', condition: { '!!': [{ var: 'order.toString' }] }, effect: 'block' },
    );
    const input = { at: new Date('2030-01-01T00:00:00.000Z'), order: { totalCents: 1 } };
    const result = await evaluate(s.tenantId, input);
    expect(result.evaluations.map((e) => e.result)).toEqual(['block', 'not_applicable']);
    expect(input.at).toBeInstanceOf(Date);
  });

  it('assertAllowed throws 403 policy_blocked naming each blocking policy', async () => {
    const s = await scenario(
      { name: 'Over a million', condition: OVER_A_MILLION, effect: 'block' },
      { name: 'Blocked partner', condition: BLOCKED_PARTNER, effect: 'block' },
      { name: 'Downgrades', condition: DOWNGRADE, effect: 'block' },
    );
    const evaluation = await evaluate(s.tenantId, orderInput(2_000_000, { partner: 'blocked-partner' }));
    let thrown: unknown;
    try {
      assertAllowed(evaluation);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    const err = thrown as AppError;
    expect(err.status).toBe(403);
    expect(err.code).toBe('policy_blocked');
    expect(err.message).toBe('Blocked by policies "Over a million", "Blocked partner"');
    expect(err.details).toMatchObject([
      { field: 'policy', rule: s.ids[0], message: 'Over a million blocks this operation' },
      { field: 'policy', rule: s.ids[1], message: 'Blocked partner blocks this operation' },
    ]);

    const allowed: PolicyEvaluation = await evaluate(s.tenantId, orderInput(10));
    expect(() => assertAllowed(allowed)).not.toThrow();
    expect(() => assertAllowed({ allowed: true, evaluations: [] })).not.toThrow();
  });
});
