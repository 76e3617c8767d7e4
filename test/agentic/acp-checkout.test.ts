import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import {
  type AcpCatalog,
  type AcpClient,
  acpCatalog,
  acpClient,
  address,
  delegation,
  noInterventions,
  paidWith,
} from './acp-client.js';
import { expectAcp, expectDelegate } from './schemas/acp/index.js';

// A whole ACP checkout, every request and answer checked against our JSON Schemas of ACP
// 2026-04-17 (test/agentic/schemas/acp/): create, an address, a fulfillment option, a discount
// code, a delegated card, complete, read back; and a second session canceled.

let t: TestApp;
let tenant: TestTenant;
let catalog: AcpCatalog;
let agent: AcpClient;
const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
  catalog = await acpCatalog(t, tenant);
  agent = acpClient(t, tenant.keys.commerce);
  // The seller's policies, shown as the session's links (the ones set: no privacy policy here).
  const seller = await t.app.inject({
    method: 'PATCH',
    url: '/api/v1/seller',
    headers: { authorization: `Bearer ${tenant.keys.admin}` },
    payload: {
      termsOfUseUrl: 'https://shop.example.com/terms',
      returnPolicyUrl: 'https://shop.example.com/returns',
    },
  });
  expect(seller.statusCode, seller.body).toBe(200);
});
afterAll(() => t.app.close());

/** Sends a request body checked against its ACP definition first; answers the session checked too. */
async function step(
  send: () => ReturnType<AcpClient['create']>,
  request: { definition: Parameters<typeof expectAcp>[0]; body: unknown } | null,
  status: number,
) {
  if (request) expectAcp(request.definition, request.body);
  const res = await send();
  expect(res.statusCode, res.body).toBe(status);
  const session = res.json();
  expectAcp(session.order ? 'CheckoutSessionWithOrder' : 'CheckoutSession', session);
  return session;
}

const totalOf = (session: { totals: { type: string; amount: number }[] }, type: string) =>
  session.totals.find((x) => x.type === type)?.amount;

describe('ACP checkout: a whole flow, every request and answer valid for the 2026-04-17 schemas', () => {
  it('creates, takes an address, an option and a code, is paid with a delegated card, completes and reads back', async () => {
    const create = {
      currency: 'usd',
      line_items: [{ id: catalog.mug.id, quantity: 2 }],
      capabilities: { interventions: { supported: ['3ds', 'address_verification'] } },
      buyer: { first_name: 'Jane', last_name: 'Doe', email: 'jane@example.com' },
    };
    const created = await step(
      () => agent.create(create),
      { definition: 'CheckoutSessionCreateRequest', body: create },
      201,
    );
    expect(created).toMatchObject({
      protocol: { version: '2026-04-17' },
      status: 'not_ready_for_payment',
      currency: 'usd',
      buyer: { first_name: 'Jane', last_name: 'Doe', email: 'jane@example.com' },
      line_items: [
        {
          id: `li_${catalog.mug.id}`,
          item: { id: catalog.mug.id },
          quantity: 2,
          name: 'Mug',
          unit_amount: 1500,
          totals: [
            { type: 'items_base_amount', amount: 3000 },
            { type: 'discount', amount: 0 },
            { type: 'subtotal', amount: 3000 },
            { type: 'tax', amount: 0 },
            { type: 'total', amount: 3000 },
          ],
        },
      ],
      fulfillment_options: [],
      selected_fulfillment_options: [],
      messages: [
        {
          type: 'error',
          code: 'missing',
          param: '$.fulfillment_details.address',
          content_type: 'plain',
          resolution: 'requires_buyer_input',
        },
      ],
      links: [
        { type: 'terms_of_use', url: 'https://shop.example.com/terms' },
        { type: 'return_policy', url: 'https://shop.example.com/returns' },
      ],
    });
    // Capability negotiation: our handler, the (empty) intersection of interventions, the extension.
    expect(created.capabilities).toMatchObject({
      payment: {
        handlers: [
          {
            id: 'acp_delegated_card',
            requires_delegate_payment: true,
            config: { merchant_id: tenant.tenantId },
          },
        ],
      },
      interventions: { supported: [], required: [], enforcement: 'conditional' },
      extensions: [{ name: 'discount' }],
    });
    const id = created.id as string;

    const withAddress = {
      fulfillment_details: { name: 'Jane Doe', phone_number: '+15551234567', address },
    };
    const addressed = await step(
      () => agent.update(id, withAddress),
      { definition: 'CheckoutSessionUpdateRequest', body: withAddress },
      200,
    );
    // The cheapest option is preselected: the session is ready as soon as it has an address.
    expect(addressed.status).toBe('ready_for_payment');
    expect(addressed.fulfillment_details).toEqual({
      name: 'Jane Doe',
      phone_number: '+15551234567',
      email: 'jane@example.com',
      address,
    });
    expect(addressed.fulfillment_options.map((o: { id: string }) => o.id)).toEqual([
      catalog.standard.id,
      catalog.express.id,
    ]);
    expect(addressed.fulfillment_options[1]).toMatchObject({
      type: 'shipping',
      title: 'Express',
      earliest_delivery_time: '2026-05-05T10:00:00.000Z',
      latest_delivery_time: '2026-05-06T10:00:00.000Z',
      totals: [{ type: 'total', amount: 1500 }],
    });
    expect(addressed.selected_fulfillment_options).toEqual([
      { type: 'shipping', option_id: catalog.standard.id, item_ids: [catalog.mug.id] },
    ]);

    const express = {
      selected_fulfillment_options: [
        { type: 'shipping', option_id: catalog.express.id, item_ids: [catalog.mug.id] },
      ],
    };
    const chosen = await step(
      () => agent.update(id, express),
      { definition: 'CheckoutSessionUpdateRequest', body: express },
      200,
    );
    expect(chosen.selected_fulfillment_options[0].option_id).toBe(catalog.express.id);
    expect(totalOf(chosen, 'fulfillment')).toBe(1500);
    expect(totalOf(chosen, 'total')).toBe(4500);

    const codes = { discounts: { codes: ['NOPE', 'save10'] } };
    const discounted = await step(
      () => agent.update(id, codes),
      { definition: 'CheckoutSessionUpdateRequest', body: codes },
      200,
    );
    expect(discounted.status).toBe('ready_for_payment');
    expect(discounted.discounts).toMatchObject({
      codes: ['NOPE', 'save10'],
      applied: [{ code: 'SAVE10', amount: 300, allocations: [{ path: '$.line_items[0]', amount: 300 }] }],
      rejected: [{ code: 'NOPE', reason: 'discount_code_invalid' }],
    });
    expect(discounted.messages).toEqual([
      expect.objectContaining({
        type: 'warning',
        code: 'discount_code_invalid',
        param: '$.discounts.codes[0]',
      }),
    ]);
    expect(discounted.totals.map((x: { type: string }) => x.type)).toEqual([
      'items_base_amount',
      'items_discount',
      'subtotal',
      'fulfillment',
      'tax',
      'total',
    ]);
    expect(totalOf(discounted, 'items_discount')).toBe(300);
    expect(totalOf(discounted, 'total')).toBe(4200);

    const card = delegation(id, tenant.tenantId, 4200, clock);
    expectDelegate('DelegatePaymentRequest', card);
    const delegated = await agent.delegate(card, { idempotencyKey: 'acp-flow-delegate' });
    expect(delegated.statusCode, delegated.body).toBe(201);
    expectDelegate('DelegatePaymentResponse', delegated.json());
    const token = delegated.json().id as string;
    expect(token).toMatch(/^vt_/);
    expect(delegated.json().metadata).toEqual({ source: 'acp-test', idempotency_key: 'acp-flow-delegate' });
    expect(delegated.body).not.toContain('4242424242424242');

    const pay = paidWith(token);
    const completed = await step(
      () => agent.complete(id, pay),
      { definition: 'CheckoutSessionCompleteRequest', body: pay },
      200,
    );
    expect(completed.status).toBe('completed');
    expect(completed.order).toEqual({
      id: expect.any(String),
      checkout_session_id: id,
      permalink_url: `${t.deps.config.publicBaseUrl.replace(/\/$/, '')}/api/v1/orders/${completed.order.id}`,
    });
    const order = await t.app.inject({
      method: 'GET',
      url: `/api/v1/orders/${completed.order.id}`,
      headers: { authorization: `Bearer ${tenant.keys.read}` },
    });
    expect(order.statusCode).toBe(200);
    expect(order.json().data.totalCents).toBe(4200);

    const read = await step(() => acpClient(t, tenant.keys.read).get(id), null, 200);
    expect(read).toEqual(completed);
  });

  it('cancels a second session; once canceled or completed, cancel is 405', async () => {
    const create = { currency: 'usd', line_items: [{ id: catalog.ebook.id }], capabilities: noInterventions };
    const created = await step(
      () => agent.create(create),
      { definition: 'CheckoutSessionCreateRequest', body: create },
      201,
    );
    // A digital product: its one option is preselected, no address needed.
    expect(created).toMatchObject({
      status: 'ready_for_payment',
      fulfillment_options: [{ type: 'digital', id: 'digital', totals: [{ type: 'total', amount: 0 }] }],
      selected_fulfillment_options: [{ type: 'digital', option_id: 'digital', item_ids: [catalog.ebook.id] }],
    });
    const cancel = { intent_trace: { reason_code: 'timing_deferred', trace_summary: 'later' } };
    const canceled = await step(
      () => agent.cancel(created.id, cancel),
      { definition: 'CancelSessionRequest', body: cancel },
      200,
    );
    expect(canceled.status).toBe('canceled');
    expect(canceled.messages).toEqual([
      { type: 'info', content_type: 'plain', content: 'The checkout session was canceled' },
    ]);

    const again = await agent.cancel(created.id);
    expect(again.statusCode).toBe(405);
    expectAcp('Error', again.json());
    expect(again.json()).toMatchObject({ type: 'invalid_request', code: 'checkout_session_closed' });
    // Changing a closed session is a conflict (409), only cancel answers 405.
    const update = await agent.update(created.id, { discounts: { codes: [] } });
    expect(update.statusCode).toBe(409);
    expect(update.json().code).toBe('checkout_session_closed');
  });
});
