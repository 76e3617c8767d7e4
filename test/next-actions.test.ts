import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../src/billing/builtin/index.js';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from './harness.js';
import { adminPost, perSeat } from './support/catalog-fixtures.js';

// Every `nextActions` entry names an operation that exists (its operationId, also the MCP tool
// name) and carries arguments that operation takes: path ids filling its path, query values it
// declares, and body fields (payInvoice: the invoice's account, balance and currency).

type Action = {
  rel: string;
  method: string;
  href: string;
  operationId?: string;
  arguments?: Record<string, unknown>;
};
type OpenApiOperation = {
  operationId: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: { 'application/json': { schema: { properties?: Record<string, unknown> } } } };
};

describe('nextActions an agent can execute', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const byId = new Map<string, { method: string; path: string; op: OpenApiOperation }>();
  const seen: Action[] = [];

  const call = async (method: string, url: string, key: string, payload?: object) => {
    const res = await t.app.inject({
      method: method as 'POST',
      url: `/api/v1${url}`,
      headers: bearer(key),
      ...(payload ? { payload } : {}),
    });
    const body = res.json();
    if (Array.isArray(body.nextActions)) seen.push(...body.nextActions);
    return { status: res.statusCode, body };
  };

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, OpenApiOperation>>;
    };
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item))
        if (op.operationId) byId.set(op.operationId, { method: method.toUpperCase(), path, op });
  });
  afterAll(() => t.app.close());

  it('a flow through accounts, carts, orders, subscriptions and payments offers only executable actions', async () => {
    await call('PUT', '/admin/billing-integration', tenant.keys.admin, { adapter: 'builtin' });
    const engine = new BuiltinBilling(t.deps.db, t.deps.clock, tenant.tenantId);
    const billingId = (await engine.createAccount({ name: 'Acme', currency: 'USD' })).id;
    const account = (
      await call('POST', '/accounts', tenant.keys.commerce, { name: 'Acme', externalId: billingId })
    ).body.data;
    const plan = await adminPost(t, tenant, 'products', perSeat('Pro', 1500, { family: 'na' }));
    const cart = (await call('POST', '/carts', tenant.keys.commerce, { currency: 'USD' })).body.data;
    await call('POST', `/carts/${cart.id}/items`, tenant.keys.commerce, { productId: plan.id, quantity: 2 });
    await call('GET', `/carts/${cart.id}`, tenant.keys.read);
    const order = (
      await call('POST', '/orders', tenant.keys.commerce, { cartId: cart.id, organizationId: account.id })
    ).body.data;
    await call('GET', `/orders/${order.id}`, tenant.keys.read);
    const sub = await call('POST', '/subscriptions', tenant.keys.commerce, {
      productId: plan.id,
      quantity: 3,
      organizationId: account.id,
    });
    expect(sub.status).toBe(201);
    await call('GET', `/accounts/${account.id}`, tenant.keys.read);
    await call('GET', '/catalog', tenant.keys.read);

    expect(seen.length).toBeGreaterThan(10);
    for (const a of seen) {
      expect(a.operationId, `${a.rel} ${a.method} ${a.href}`).toBeDefined();
      const target = byId.get(a.operationId as string);
      expect(target, a.operationId).toBeDefined();
      if (!target) continue;
      expect(target.method).toBe(a.method);
      // The path ids fill the operation's path to exactly the href.
      const filled = target.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
        encodeURIComponent(String(a.arguments?.[name] ?? `{${name}}`)),
      );
      expect(filled, a.rel).toBe(a.href.split('?')[0]);
      // Every argument is something the operation takes.
      const takes = new Set([
        ...(target.op.parameters ?? []).map((p) => p.name),
        ...Object.keys(target.op.requestBody?.content['application/json'].schema.properties ?? {}),
      ]);
      for (const name of Object.keys(a.arguments ?? {}))
        expect(takes.has(name), `${a.operationId}: ${name}`).toBe(true);
    }

    // payInvoice comes ready to pay: the invoice's account, balance and currency.
    const pay = seen.find((a) => a.operationId === 'payInvoice') as Action;
    expect(pay).toBeDefined();
    const invoiceId = pay.arguments?.id as string;
    const invoice = await engine.getInvoice(invoiceId);
    if (!invoice.ok) throw new Error('invoice');
    expect(pay.arguments).toEqual({
      id: invoiceId,
      accountId: billingId,
      amountCents: invoice.value.balanceCents,
      currency: 'USD',
    });
    const { id: _id, ...body } = pay.arguments as Record<string, unknown>;
    const paid = await call('POST', `/invoices/${invoiceId}/pay`, tenant.keys.commerce, body);
    expect(paid.status).toBe(201);
  });
});
