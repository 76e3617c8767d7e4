import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { platformProfile, startPlatform } from './schemas/ucp/platform.js';
import { ADDRESS, instrument, stockShop, ucpClient } from './schemas/ucp/shop.js';
import { assertUcp } from './schemas/ucp/validator.js';

// The rules around the flow: payment outcomes of the sandbox card, determinism, what a create
// ignores, discount codes, tenants apart, idempotency and validation in UCP's shapes.

const clock = new ManualClock(new Date('2031-05-01T10:00:00.000Z'));
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let stock: Awaited<ReturnType<typeof stockShop>>;
let platform: Awaited<ReturnType<typeof startPlatform>>;
let ucp: ReturnType<typeof ucpClient>;
let profileUrl: string;

beforeAll(async () => {
  t = await startApp({ clock, config: { publicBaseUrl: 'https://shop.example.com' } });
  shop = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  stock = await stockShop(t, shop);
  platform = await startPlatform();
  profileUrl = platform.serve('/profile', { body: platformProfile() });
  ucp = ucpClient(t, shop.keys.commerce, profileUrl);
});
afterAll(async () => {
  await t.app.close();
  await platform.close();
});

const ebookOnly = () => ({ line_items: [{ item: { id: stock.ebook }, quantity: 1 }] });

async function readyCheckout() {
  const res = await ucp.create(ebookOnly());
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('the sandbox card', () => {
  it('fail_token: declined, a payment_failed message, no order; the token is not echoed', async () => {
    const { id } = await readyCheckout();
    const res = await ucp.complete(id, instrument('fail_token'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain('fail_token');
    const checkout = res.json();
    assertUcp('checkout', checkout);
    expect(checkout.status).not.toBe('completed');
    expect(checkout.order).toBeUndefined();
    expect(checkout.messages).toContainEqual(
      expect.objectContaining({ type: 'error', code: 'payment_failed', severity: 'recoverable' }),
    );
  });

  it('escalate_token: requires_escalation with an absolute continue_url and a message for the buyer', async () => {
    const { id } = await readyCheckout();
    const res = await ucp.complete(id, instrument('escalate_token'));
    expect(res.statusCode, res.body).toBe(200);
    const checkout = res.json();
    assertUcp('checkout', checkout);
    expect(checkout.status).toBe('requires_escalation');
    expect(checkout.continue_url).toMatch(/^https:\/\/shop\.example\.com\//);
    expect(
      checkout.messages.some((m: { severity?: string }) => m.severity?.startsWith('requires_buyer')),
    ).toBe(true);
  });

  it('a handler that is not advertised never completes', async () => {
    const { id } = await readyCheckout();
    const res = await ucp.complete(id, instrument('success_token', 'some_other_handler'));
    const body = res.json();
    if (res.statusCode === 200) {
      assertUcp('checkout', body);
      expect(body.status).not.toBe('completed');
    } else {
      expect(res.statusCode).toBe(400);
      assertUcp('error', body);
      expect(body.messages[0]).toEqual(
        expect.objectContaining({
          code: 'payment_token_invalid',
          path: '$.payment.instruments[0].handler_id',
        }),
      );
    }
    const after = (await ucp.get(id)).json();
    expect(after.status).not.toBe('completed');
    expect(after.order).toBeUndefined();
  });

  it('a token the handler does not know: 400 payment_token_invalid at the credential, not echoed', async () => {
    const { id } = await readyCheckout();
    const res = await ucp.complete(id, instrument('tok_4242_secret'));
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toContain('tok_4242_secret');
    const body = res.json();
    assertUcp('error', body);
    expect(body.messages[0]).toEqual(
      expect.objectContaining({
        code: 'payment_token_invalid',
        path: '$.payment.instruments[0].credential.token',
        severity: 'recoverable',
      }),
    );
  });
});

describe('determinism and what a create reads', () => {
  it('identical requests: identical prices, totals, messages and status', async () => {
    const body = {
      line_items: [{ item: { id: stock.tote }, quantity: 3 }],
      discounts: { codes: ['SAVE10', 'NOPE'] },
    };
    const [a, b] = [(await ucp.create(body)).json(), (await ucp.create(body)).json()];
    expect(a.id).not.toBe(b.id);
    for (const field of ['status', 'line_items', 'totals', 'messages', 'discounts', 'fulfillment'])
      expect(b[field], field).toEqual(a[field]);
  });

  it('create ignores the response-only fields a client sends (ids, status, totals, links, prices)', async () => {
    const res = await ucp.create({
      id: 'chk_mine',
      status: 'completed',
      ucp: { version: '2026-04-08' },
      totals: [{ type: 'total', amount: 1 }],
      links: [{ type: 'terms_of_service', url: 'https://evil.example/terms' }],
      line_items: [
        { id: 'li_mine', item: { id: stock.ebook, title: 'Free', price: 1 }, quantity: 1, totals: [] },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const checkout = res.json();
    expect(checkout.id).not.toBe('chk_mine');
    expect(checkout.status).toBe('ready_for_complete');
    expect(checkout.line_items[0].item).toEqual(
      expect.objectContaining({ title: 'Field guide (e-book)', price: 1200 }),
    );
    expect(checkout.totals.find((x: { type: string }) => x.type === 'total').amount).toBe(1200);
    expect(JSON.stringify(checkout.links)).not.toContain('evil.example');
  });
});

describe('discount codes', () => {
  it('an unknown code is kept but not applied (a message points to it); [] clears the codes', async () => {
    const created = (
      await ucp.create({
        line_items: [{ item: { id: stock.tote }, quantity: 1 }],
        discounts: { codes: ['NOPE'] },
      })
    ).json();
    assertUcp('checkout', created);
    expect(created.discounts).toEqual({ codes: ['NOPE'], applied: [] });
    expect(created.messages).toContainEqual(expect.objectContaining({ path: '$.discounts.codes[0]' }));
    const cleared = (
      await ucp.update(created.id, {
        line_items: [{ item: { id: stock.tote }, quantity: 1 }],
        discounts: { codes: [] },
      })
    ).json();
    expect(cleared.discounts).toEqual({ codes: [], applied: [] });
    expect(cleared.messages.some((m: { path?: string }) => m.path?.startsWith('$.discounts'))).toBe(false);
  });

  it('a platform without the discount extension: no `discounts` answered, codes sent ignored', async () => {
    const plain = ucpClient(
      t,
      shop.keys.commerce,
      platform.serve('/no-discount', {
        body: platformProfile({ capabilities: ['checkout', 'fulfillment'] }),
      }),
    );
    const res = await plain.create({
      line_items: [{ item: { id: stock.ebook }, quantity: 1 }],
      discounts: { codes: ['SAVE10'] },
    });
    const checkout = res.json();
    assertUcp('checkout', checkout);
    expect(checkout.discounts).toBeUndefined();
    expect(Object.keys(checkout.ucp.capabilities).sort()).toEqual([
      'dev.ucp.shopping.checkout',
      'dev.ucp.shopping.fulfillment',
    ]);
    expect(checkout.totals.find((x: { type: string }) => x.type === 'total').amount).toBe(1200);
  });
});

describe('tenants apart', () => {
  it('another tenant’s checkout is 404 for every operation, and its order not_found', async () => {
    const { id } = await readyCheckout();
    const stranger = ucpClient(t, other.keys.commerce, profileUrl);
    for (const res of [
      await stranger.get(id),
      await stranger.update(id, ebookOnly()),
      await stranger.complete(id, instrument('success_token')),
      await stranger.cancel(id),
    ]) {
      expect(res.statusCode, res.body).toBe(404);
      assertUcp('error', res.json());
      expect(res.json().messages[0].code).toBe('not_found');
    }
    const done = (await ucp.complete(id, instrument('success_token'))).json();
    const order = await stranger.order(done.order.id);
    expect(order.statusCode).toBe(200);
    assertUcp('error', order.json());
    expect(order.json().messages[0].code).toBe('not_found');
  });
});

describe('idempotency and validation', () => {
  it('the same key and body replays the answer; another body under the key is 409', async () => {
    const body = ebookOnly();
    const first = await ucp.create(body, 'create-key-1');
    const replay = await ucp.create(body, 'create-key-1');
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    const conflict = await ucp.create(
      { line_items: [{ item: { id: stock.tote }, quantity: 1 }] },
      'create-key-1',
    );
    expect(conflict.statusCode).toBe(409);
    assertUcp('error', conflict.json());
    expect(conflict.json().messages[0].code).toBe('idempotency_conflict');
  });

  it('a request that does not fit: 400 with a message per problem, each with its JSONPath', async () => {
    const res = await ucp.create({ line_items: [{ item: { id: stock.tote }, quantity: 0 }] });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    assertUcp('error', body);
    expect(body.messages).toContainEqual(
      expect.objectContaining({ code: 'invalid', path: '$.line_items[0].quantity', severity: 'recoverable' }),
    );
    const missing = (await ucp.create({ buyer: {} })).json();
    expect(missing.messages).toContainEqual(
      expect.objectContaining({ code: 'missing', path: '$.line_items' }),
    );
  });

  it('a checkout that ships, completed before it has an address, answers as it stands with what is missing', async () => {
    const created = (await ucp.create({ line_items: [{ item: { id: stock.tote }, quantity: 1 }] })).json();
    const res = await ucp.complete(created.id, instrument('success_token'));
    expect(res.statusCode, res.body).toBe(200);
    const checkout = res.json();
    assertUcp('checkout', checkout);
    expect(checkout.status).toBe('incomplete');
    expect(checkout.messages.some((m: { path?: string }) => m.path?.startsWith('$.fulfillment'))).toBe(true);
    const shipped = await ucp.update(created.id, {
      line_items: [{ item: { id: stock.tote }, quantity: 1 }],
      fulfillment: { methods: [{ type: 'shipping', destinations: [ADDRESS] }] },
    });
    expect(shipped.statusCode).toBe(200);
  });
});
