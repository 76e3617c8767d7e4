import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { compileArgumentValidator } from '../../src/http/validation.js';
import { type OpenApiDocumentLike, type ToolDefinition, toolsFromOpenApi } from '../../src/mcp/tools.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api, type Method } from '../support/api.js';
import { linkedBillingAccount } from '../support/billing-fixtures.js';
import { adminPost, perSeat } from '../support/catalog-fixtures.js';

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

let t: TestApp;
let tenant: TestTenant;
const byId = new Map<string, { method: string; path: string; op: OpenApiOperation }>();
const seen: Action[] = [];

const call = async (method: string, url: string, key: string, payload?: object) => {
  const res = await api(t, key).send(method as Method, url, payload);
  const body = res.json();
  if (Array.isArray(body.nextActions)) seen.push(...body.nextActions);
  return { status: res.statusCode, body };
};

let doc: OpenApiDocumentLike;
const tools = new Map<string, ToolDefinition>();

/** The arguments, as given, validate against the tool's input (the agent adds what is required). */
const expectArgumentsValid = (a: Action) => {
  const tool = tools.get(a.operationId as string);
  // The two operations that return the OpenAPI document are REST-only (not tools): no arguments.
  if (!tool) return expect(a.arguments ?? {}, a.operationId).toEqual({});
  const validate = compileArgumentValidator({ ...tool.inputSchema, required: [] });
  expect(validate(a.arguments ?? {}), `${a.operationId} ${JSON.stringify(validate.errors)}`).toBe(true);
};

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps);
  doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item))
      if (op.operationId)
        byId.set(op.operationId, { method: method.toUpperCase(), path, op: op as OpenApiOperation });
  for (const tool of toolsFromOpenApi(doc)) tools.set(tool.name, tool);
});
afterAll(() => t.app.close());

describe('nextActions an agent can execute: flows and examples', () => {
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
      // Every argument is one the operation's MCP tool takes, with a value its schema accepts.
      expectArgumentsValid(a);
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

  it('every nextActions entry in every example of the OpenAPI document is executable', async () => {
    let checked = 0;
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item))
        for (const response of Object.values(
          (op as { responses?: Record<string, unknown> }).responses ?? {},
        )) {
          const media = (response as { content?: Record<string, { example?: { nextActions?: Action[] } }> })
            .content?.['application/json'];
          for (const a of media?.example?.nextActions ?? []) {
            expect(byId.get(a.operationId as string), `${a.rel} in an example`).toMatchObject({
              method: a.method,
            });
            expectArgumentsValid(a);
            checked += 1;
          }
        }
    // The recorded examples of the typical flow carry actions (sampled ones show none).
    expect(checked).toBeGreaterThan(20);
  });
});

describe('nextActions an agent can execute: no dead ends', () => {
  it('offers no dead ends: required rels say why they cannot succeed, others are left out', async () => {
    const { engine, billingId, orgId } = await linkedBillingAccount(t, tenant, 'Linked');
    const rels = (body: { nextActions: Action[] }) =>
      Object.fromEntries(body.nextActions.map((a) => [a.rel, a as Action & { reason?: string }]));

    // An account without a billing account lists the billing rels as refused, with the reason...
    const unlinked = (await call('POST', '/accounts', tenant.keys.commerce, { name: 'No billing' })).body;
    const refused = rels(unlinked);
    for (const rel of ['invoices', 'subscriptions', 'paymentMethods']) {
      expect(refused[rel], rel).toMatchObject({
        allowed: false,
        reason: expect.stringContaining('externalId'),
      });
      // ...and indeed the call could only fail.
      expect(
        (await call('GET', new URL(refused[rel]?.href ?? '', 'http://x').pathname.slice(7), tenant.keys.read))
          .status,
      ).toBe(404);
    }
    // A linked one offers them, and they answer.
    const linked = rels((await call('GET', `/accounts/${orgId}`, tenant.keys.read)).body);
    expect(linked.invoices).toMatchObject({ allowed: true });
    expect(linked.invoices).not.toHaveProperty('reason');
    expect((await call('GET', `/accounts/${orgId}/invoices`, tenant.keys.read)).status).toBe(200);

    // A $0 draft (no owner, nothing to pay) offers no payment.
    const draft = (await call('POST', '/orders', tenant.keys.commerce, {})).body;
    expect(draft.data).toMatchObject({ status: 'draft', totalCents: 0 });
    expect(draft.nextActions.map((a: Action) => a.rel)).toEqual(['self', 'update']);

    // An invoiced order offers its balance; once the invoice is paid, nothing to pay.
    const product = await adminPost(t, tenant, 'products', {
      name: 'Kit',
      type: 'one_time',
      currency: 'USD',
      charges: [{ name: 'Kit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 3000 }] }],
    });
    const order = (
      await call('POST', '/orders', tenant.keys.commerce, {
        organizationId: orgId,
        items: [{ productId: product.id }],
      })
    ).body;
    const pay = rels(order).payInvoice as Action;
    expect(pay.arguments).toEqual({
      id: order.data.invoiceId,
      accountId: billingId,
      amountCents: 3000,
      currency: 'USD',
    });
    const { id: invoiceId, ...payBody } = pay.arguments as Record<string, unknown>;
    const session = (await call('POST', `/invoices/${invoiceId}/pay`, tenant.keys.commerce, payBody)).body;
    expect(rels(session).complete).toBeDefined();
    const done = (await call('POST', `/payments/${session.data.id}/complete`, tenant.keys.commerce, {})).body;
    expect(done.data.status).toBe('success');
    // Terminal: no complete; the order it paid (the invoice's) and its account's invoice list are there.
    expect(done.data.orderId).toBe(order.data.id);
    expect(done.nextActions.map((a: Action) => a.rel)).toEqual([
      'self',
      'order',
      'refund',
      'accountInvoices',
    ]);
    const invoice = await engine.getInvoice(invoiceId as string);
    expect(invoice.ok && invoice.value.status).toBe('paid');
    const paid = (await call('GET', `/orders/${order.data.id}`, tenant.keys.read)).body;
    expect(paid.nextActions.map((a: Action) => a.rel)).toEqual(['self', 'update']);
    expect(paid.data.paymentStatus).toBe('paid');

    // A session paying no invoice offers no invoice list (nothing says its account has one).
    const loose = (
      await call('POST', '/payments', tenant.keys.commerce, {
        accountId: 'acct_1',
        amountCents: 100,
        currency: 'USD',
      })
    ).body;
    expect(loose.nextActions.map((a: Action) => a.rel)).toEqual(['self', 'complete']);

    // A subscription mid-period offers renew (billing the next period early) until that is billed;
    // once pending cancellation, only an immediate cancel.
    const plan = await adminPost(t, tenant, 'products', perSeat('Team', 900, { family: 'dead-ends' }));
    const sub = (
      await call('POST', '/subscriptions', tenant.keys.commerce, {
        productId: plan.id,
        organizationId: orgId,
      })
    ).body;
    expect(sub.nextActions.map((a: Action) => a.rel)).toContain('renew');
    expect(rels(sub).previewCancellation?.arguments).toEqual({ subscriptionId: sub.data.id });
    const early = await call('POST', `/subscriptions/${sub.data.id}/renew`, tenant.keys.commerce, {});
    expect(early.status).toBe(200);
    expect(early.body.nextActions.map((a: Action) => a.rel)).not.toContain('renew');
    const billed = (await call('GET', `/subscriptions/${sub.data.id}`, tenant.keys.read)).body;
    expect(billed.nextActions.map((a: Action) => a.rel)).not.toContain('renew');
    const ending = (
      await call('POST', `/subscriptions/${sub.data.id}/cancel`, tenant.keys.commerce, {
        timing: 'end_of_period',
      })
    ).body;
    expect(ending.data.status).toBe('pending_cancellation');
    expect(ending.nextActions.map((a: Action) => a.rel)).not.toContain('renew');
    expect(rels(ending).cancel?.arguments).toEqual({ id: sub.data.id, timing: 'immediate' });
    const again = await call('POST', `/subscriptions/${sub.data.id}/cancel`, tenant.keys.commerce, {
      timing: 'immediate',
    });
    expect(again.status).toBe(200);
  });
});
