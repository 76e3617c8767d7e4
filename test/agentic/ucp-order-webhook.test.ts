import { createPublicKey } from 'node:crypto';
import { createVerifier, httpbis } from 'http-message-signatures';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createSender, DeliveryWorker, type Sender } from '../../src/modules/webhooks/index.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { type Receipt, type Receiver, startReceiver, TEST_CA_FILE } from '../support/webhook-receiver.js';
import { platformProfile, startPlatform } from './schemas/ucp/platform.js';
import { instrument, stockShop, ucpClient } from './schemas/ucp/shop.js';
import { assertUcp } from './schemas/ucp/validator.js';

// The order webhook (order.md, "Order Event Webhook"): when a UCP checkout completes, the full
// order entity goes to the webhook_url of the platform's profile, queued with the order, signed
// with the seller's key; the platform verifies it with the keys of our business profile.

const logger = pino({ level: 'silent' });
const clock = new ManualClock(new Date('2031-06-01T09:00:00.000Z'));
const BASE = 'https://shop.example.com';
let t: TestApp;
let shop: TestTenant;
let stock: Awaited<ReturnType<typeof stockShop>>;
let platform: Awaited<ReturnType<typeof startPlatform>>;
let sender: Sender;
let receiver: Receiver;
let worker: DeliveryWorker;

beforeAll(async () => {
  t = await startApp({
    clock,
    config: { publicBaseUrl: BASE, webhookAllowPrivateTargets: true, webhookCaFile: TEST_CA_FILE },
  });
  shop = await createTestTenant(t.deps);
  stock = await stockShop(t, shop);
  platform = await startPlatform();
  sender = createSender({ allowPrivateTargets: true, caFile: TEST_CA_FILE });
});
afterAll(async () => {
  await sender.close();
  await t.app.close();
  await platform.close();
});
beforeEach(async () => {
  receiver = await startReceiver();
  worker = new DeliveryWorker(
    { db: t.deps.db, clock, logger, keyRing: t.deps.keyRing, sender },
    { concurrency: 2, pollIntervalMs: 60_000, tenantIds: [shop.tenantId] },
  );
});
afterEach(() => receiver.close());

const profileUrl = `${BASE}/ucp/t/{tenant}/.well-known/ucp`;

/** A platform whose profile names the receiver as its order webhook_url. */
const withWebhook = (path: string) =>
  ucpClient(
    t,
    shop.keys.commerce,
    platform.serve(path, { body: platformProfile({ webhookUrl: receiver.url }) }),
  );

/** Verifies the receipt's RFC 9421 signature with a key of our public business profile (found by keyid). */
async function verifiesWithOurProfile(receipt: Receipt): Promise<boolean | null> {
  const profile = await t.app.inject({ method: 'GET', url: `/ucp/t/${shop.tenantId}/.well-known/ucp` });
  assertUcp('businessProfile', profile.json());
  const keys = profile.json().signing_keys as { kid: string }[];
  const headers = Object.fromEntries(
    Object.entries(receipt.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : String(value),
    ]),
  );
  return httpbis.verifyMessage(
    {
      keyLookup: async (params) => {
        const jwk = keys.find((k) => k.kid === params.keyid);
        if (!jwk) return null;
        const key = createPublicKey({ key: jwk as never, format: 'jwk' });
        return { id: jwk.kid, algs: ['ecdsa-p256-sha256'], verify: createVerifier(key, 'ecdsa-p256-sha256') };
      },
      requiredFields: ['@method', '@authority', '@path', 'content-digest', 'content-type', 'ucp-agent'],
      notAfter: new Date(clock.now().getTime() + 5_000),
    },
    { method: 'POST', url: receiver.url, headers },
  );
}

describe('the order webhook', () => {
  it('a completed checkout: the order entity POSTed to the platform, signed, verifiable with our profile’s keys', async () => {
    const ucp = withWebhook('/hooked');
    const created = (await ucp.create({ line_items: [{ item: { id: stock.ebook }, quantity: 1 }] })).json();
    const done = (await ucp.complete(created.id, instrument('success_token'), 'complete-hooked')).json();
    expect(done.status).toBe('completed');
    expect(await worker.drain()).toBe(1);
    expect(receiver.receipts).toHaveLength(1);
    const [receipt] = receiver.receipts as [Receipt];
    const order = JSON.parse(receipt.body);
    assertUcp('order', order);
    expect(order.id).toBe(done.order.id);
    expect(order.checkout_id).toBe(created.id);
    // The entity as get order answers it; the order number (`label`) is not known while it is placed.
    const { label, ...current } = (await ucp.order(done.order.id)).json();
    expect(label).toMatch(/^ORD-\d+$/);
    expect(order).toEqual(current);
    expect(receipt.headers['ucp-agent']).toBe(`profile="${profileUrl.replace('{tenant}', shop.tenantId)}"`);
    expect(receipt.headers['webhook-id']).toBeTruthy();
    expect(await verifiesWithOurProfile(receipt)).toBe(true);
  });

  it('a later change of the order (its status) is pushed too, as the order now is; other orders push nothing', async () => {
    const ucp = withWebhook('/hooked-later');
    const created = (await ucp.create({ line_items: [{ item: { id: stock.ebook }, quantity: 1 }] })).json();
    const done = (await ucp.complete(created.id, instrument('success_token'))).json();
    expect(await worker.drain()).toBe(1);
    const patch = (id: string) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/v1/orders/${id}`,
        headers: { authorization: `Bearer ${shop.keys.commerce}` },
        payload: { status: 'fulfilled' },
      });
    expect((await patch(done.order.id)).statusCode).toBe(200);
    expect(await worker.drain()).toBe(1);
    const later = receiver.receipts[1] as Receipt;
    const order = JSON.parse(later.body);
    assertUcp('order', order);
    expect(order).toEqual((await ucp.order(done.order.id)).json());
    expect(await verifiesWithOurProfile(later)).toBe(true);
    // An order no UCP checkout placed: no platform to tell.
    const plain = await t.app.inject({
      method: 'POST',
      url: '/api/v1/orders',
      headers: { authorization: `Bearer ${shop.keys.commerce}` },
      payload: { items: [{ productId: stock.ebook, quantity: 1 }] },
    });
    expect(plain.statusCode, plain.body).toBe(201);
    expect((await patch(plain.json().data.id)).statusCode).toBe(200);
    expect(await worker.drain()).toBe(0);
    expect(receiver.receipts).toHaveLength(2);
  });

  it('the platform’s profile URL and webhook_url are kept with the checkout it opens', async () => {
    const url = platform.serve('/kept', { body: platformProfile({ webhookUrl: receiver.url }) });
    const created = (
      await ucpClient(t, shop.keys.commerce, url).create({
        line_items: [{ item: { id: stock.ebook }, quantity: 1 }],
      })
    ).json();
    const merchant = await t.app.inject({
      method: 'GET',
      url: `/api/v1/checkout-sessions/${created.id}`,
      headers: { authorization: `Bearer ${shop.keys.read}` },
    });
    expect(merchant.statusCode, merchant.body).toBe(200);
    expect(merchant.json().data.platform).toEqual({ webhookUrl: receiver.url, profileUrl: url });
  });

  it('a replayed completion sends nothing more; a declined one sends nothing', async () => {
    const ucp = withWebhook('/hooked-2');
    const created = (await ucp.create({ line_items: [{ item: { id: stock.ebook }, quantity: 1 }] })).json();
    await ucp.complete(created.id, instrument('success_token'), 'complete-twice');
    await ucp.complete(created.id, instrument('success_token'), 'complete-twice');
    expect(await worker.drain()).toBe(1);
    const declined = (await ucp.create({ line_items: [{ item: { id: stock.ebook }, quantity: 1 }] })).json();
    expect((await ucp.complete(declined.id, instrument('fail_token'))).json().status).toBe(
      'ready_for_complete',
    );
    expect(await worker.drain()).toBe(0);
    expect(receiver.receipts).toHaveLength(1);
  });

  it('a platform without a webhook_url gets none', async () => {
    const ucp = ucpClient(t, shop.keys.commerce, platform.serve('/quiet', { body: platformProfile() }));
    const created = (await ucp.create({ line_items: [{ item: { id: stock.ebook }, quantity: 1 }] })).json();
    expect((await ucp.complete(created.id, instrument('success_token'))).json().status).toBe('completed');
    expect(await worker.drain()).toBe(0);
  });

  it('a webhook_url we could not send to (not https, not loopback) refuses the create: 422 profile_malformed', async () => {
    const url = platform.serve('/bad-hook', {
      body: platformProfile({ webhookUrl: 'http://platform.example/hooks' }),
    });
    const res = await ucpClient(t, shop.keys.commerce, url).create({
      line_items: [{ item: { id: stock.ebook }, quantity: 1 }],
    });
    expect(res.statusCode).toBe(422);
    assertUcp('error', res.json());
    expect(res.json().messages[0].code).toBe('profile_malformed');
  });
});
