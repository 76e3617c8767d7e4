import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { AppError } from '../../src/core/errors.js';
import { claimScope, requestHash } from '../../src/http/idempotency/store.js';
import { acpError } from '../../src/modules/checkout-sessions/acp/edge.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import {
  type AcpCatalog,
  type AcpClient,
  acpCatalog,
  acpClient,
  address,
  noInterventions,
} from './acp-client.js';
import { expectAcp } from './schemas/acp/index.js';

// What an ACP session answers for what the agent sends: problems with items as messages (not
// refusals), idempotent retries as RFC section 6 words them, changes and their clearing, tenants.

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
});
afterAll(() => t.app.close());

const ebook = () => ({
  currency: 'usd',
  line_items: [{ id: catalog.ebook.id }],
  capabilities: noInterventions,
});

describe('ACP sessions: item problems are messages', () => {
  it('answers an unknown product and a zero quantity as messages[] errors with their JSONPath', async () => {
    const res = await agent.create({
      currency: 'usd',
      capabilities: noInterventions,
      line_items: [
        { id: catalog.ebook.id, quantity: 1 },
        { id: 'item_not_sold_here', quantity: 1 },
        { id: catalog.mug.id, quantity: 0 },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const session = res.json();
    expectAcp('CheckoutSession', session);
    expect(session.status).toBe('not_ready_for_payment');
    expect(session.line_items.map((l: { item: { id: string } }) => l.item.id)).toEqual([catalog.ebook.id]);
    expect(session.messages).toEqual([
      expect.objectContaining({ type: 'error', code: 'invalid', param: '$.line_items[1].id' }),
      expect.objectContaining({ type: 'error', code: 'invalid', param: '$.line_items[2].quantity' }),
    ]);
    // Fixed by an update that replaces the items: ready.
    const fixed = await agent.update(session.id, { line_items: [{ id: catalog.ebook.id, quantity: 2 }] });
    expect(fixed.json()).toMatchObject({ status: 'ready_for_payment', messages: [] });
  });

  it('answers an address no option ships to as a message on its country', async () => {
    const res = await agent.create({
      ...ebook(),
      line_items: [{ id: catalog.mug.id }],
      fulfillment_details: { address: { ...address, country: 'FR', state: 'IDF', postal_code: '75002' } },
    });
    expectAcp('CheckoutSession', res.json());
    expect(res.json().messages).toEqual([
      expect.objectContaining({
        type: 'error',
        code: 'invalid',
        param: '$.fulfillment_details.address.country',
      }),
    ]);
  });
});

describe('ACP sessions: idempotency (RFC section 6)', () => {
  it('replays the same key and body with the first answer and Idempotent-Replayed: true', async () => {
    const first = await agent.create(ebook(), { idempotencyKey: 'acp-replay-1' });
    const again = await agent.create(ebook(), { idempotencyKey: 'acp-replay-1' });
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['idempotency-key']).toBe('acp-replay-1');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // An update replays the same way.
    const id = first.json().id;
    const update = { discounts: { codes: [] } };
    await agent.update(id, update, { idempotencyKey: 'acp-replay-2' });
    const replayed = await agent.update(id, update, { idempotencyKey: 'acp-replay-2' });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
  });

  it('refuses the same key with another body: 422 idempotency_conflict', async () => {
    await agent.create(ebook(), { idempotencyKey: 'acp-conflict-1' });
    const res = await agent.create(
      { ...ebook(), line_items: [{ id: catalog.ebook.id, quantity: 3 }] },
      { idempotencyKey: 'acp-conflict-1' },
    );
    expect(res.statusCode).toBe(422);
    expectAcp('Error', res.json());
    expect(res.json()).toMatchObject({ type: 'invalid_request', code: 'idempotency_conflict' });
  });

  it('answers the same request still in flight 409 idempotency_in_flight with Retry-After', async () => {
    // What a request still running holds: the claim on its key, no answer yet.
    const body = ebook();
    const scope = {
      tenantId: tenant.tenantId,
      key: 'acp-in-flight-1',
      method: 'POST',
      path: '/api/v1/checkout_sessions',
      hash: requestHash(body, {}),
    };
    expect((await claimScope(t.deps.db, t.deps.keyRing, scope, clock.now(), 60_000)).kind).toBe('claimed');
    const res = await agent.create(body, { idempotencyKey: 'acp-in-flight-1' });
    expect(res.statusCode).toBe(409);
    expectAcp('Error', res.json());
    expect(res.json()).toMatchObject({ type: 'invalid_request', code: 'idempotency_in_flight' });
    expect(res.headers['retry-after']).toBe('1');
  });

  it('answers 5xx as processing_error, or service_unavailable when it is one', () => {
    expect(acpError(new AppError('internal', 'boom'))).toEqual({
      status: 500,
      body: { type: 'processing_error', code: 'internal', message: 'boom' },
    });
    expect(acpError(new AppError('service_unavailable', 'down')).body.type).toBe('service_unavailable');
    expect(acpError(new AppError('billing_unavailable', 'down')).body.type).toBe('service_unavailable');
  });
});

describe('ACP sessions: changes', () => {
  it('takes the older `items`, merges the contact into the buyer, and clears the address with null', async () => {
    const created = await agent.create({
      currency: 'usd',
      capabilities: noInterventions,
      items: [{ id: catalog.mug.id, quantity: 1 }],
      buyer: { full_name: 'Ada King Lovelace', email: 'ada@example.com' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().buyer).toEqual({
      first_name: 'Ada',
      last_name: 'King Lovelace',
      email: 'ada@example.com',
    });
    const id = created.json().id;
    const addressed = await agent.update(id, {
      fulfillment_details: { phone_number: '+15550001111', address },
    });
    expect(addressed.json()).toMatchObject({
      status: 'ready_for_payment',
      buyer: { first_name: 'Ada', email: 'ada@example.com', phone_number: '+15550001111' },
    });
    const cleared = await agent.update(id, { fulfillment_details: null });
    expectAcp('CheckoutSession', cleared.json());
    expect(cleared.json()).toMatchObject({ status: 'not_ready_for_payment', fulfillment_options: [] });
    expect(cleared.json().fulfillment_details).not.toHaveProperty('address');
    const both = await agent.update(id, {
      items: [{ id: catalog.mug.id }],
      line_items: [{ id: catalog.mug.id }],
    });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toMatchObject({ code: 'invalid', param: '$.items' });
  });

  it('refuses an option id no entry agrees on, and answers an option not offered as a message', async () => {
    const id = (await agent.create({ ...ebook(), line_items: [{ id: catalog.mug.id }] })).json().id;
    await agent.update(id, { fulfillment_details: { address } });
    const split = await agent.update(id, {
      selected_fulfillment_options: [{ option_id: catalog.standard.id }, { option_id: catalog.express.id }],
    });
    expect(split.statusCode).toBe(400);
    expect(split.json()).toMatchObject({
      code: 'invalid',
      param: '$.selected_fulfillment_options[1].option_id',
    });
    const unknown = await agent.update(id, {
      selected_fulfillment_options: [{ type: 'shipping', option_id: 'nope' }],
    });
    expect(unknown.json().messages).toEqual([
      expect.objectContaining({ type: 'error', code: 'invalid', param: '$.selected_fulfillment_options' }),
    ]);
  });
});

describe('ACP sessions: tenants', () => {
  it('answers another merchant’s session 404, on every route', async () => {
    const id = (await agent.create(ebook())).json().id;
    const other = acpClient(t, (await createTestTenant(t.deps)).keys.commerce);
    for (const res of [
      await other.get(id),
      await other.update(id, { discounts: { codes: [] } }),
      await other.cancel(id),
      await other.complete(id, {
        payment_data: {
          handler_id: 'acp_delegated_card',
          instrument: { type: 'card', credential: { type: 'spt', token: 'vt_x' } },
        },
      }),
    ]) {
      expect(res.statusCode, res.body).toBe(404);
      expectAcp('Error', res.json());
      expect(res.json()).toMatchObject({ type: 'invalid_request', code: 'not_found' });
    }
    expect((await agent.get(id)).statusCode).toBe(200);
  });
});
