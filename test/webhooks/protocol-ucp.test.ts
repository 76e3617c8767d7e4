import { createHash, createPublicKey, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { createVerifier, httpbis } from 'http-message-signatures';
import pino from 'pino';
import { parseDictionary } from 'structured-headers';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { systemContext } from '../../src/core/context.js';
import { AppError } from '../../src/core/errors.js';
import { rotateSellerSigningKey, sellerSigningKeys } from '../../src/modules/seller/index.js';
import {
  createSender,
  DeliveryWorker,
  enqueuePlatformDelivery,
  platformUrlProblem,
  type Sender,
} from '../../src/modules/webhooks/index.js';
import {
  webhookAttempts,
  webhookDeliveries,
  webhookSubscriptions,
} from '../../src/modules/webhooks/tables.js';
import { mintedKey, runUnitOfWork } from '../../src/unit-of-work/index.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { type Receipt, type Receiver, startReceiver, TEST_CA_FILE } from '../support/webhook-receiver.js';

// A delivery to an agent platform's webhook URL (UCP order events): queued in the unit of work of
// the change, sent by the webhook worker with its retries, signed per RFC 9421 with the seller's
// key (UCP signatures.md) and carrying Content-Digest (RFC 9530).

const logger = pino({ level: 'silent' });
const clock = new ManualClock(new Date('2031-04-01T08:00:00Z'));
const PROFILE = 'https://shop.example/.well-known/ucp';

let t: TestApp;
let sender: Sender;
let tenant: TestTenant;
let receiver: Receiver;
let worker: DeliveryWorker;

beforeAll(async () => {
  t = await startApp({ clock, config: { webhookAllowPrivateTargets: true, webhookCaFile: TEST_CA_FILE } });
  sender = createSender({ allowPrivateTargets: true, caFile: TEST_CA_FILE });
});
afterAll(async () => {
  await sender.close();
  await t.app.close();
});
beforeEach(async () => {
  tenant = await createTestTenant(t.deps);
  receiver = await startReceiver();
  worker = new DeliveryWorker(
    { db: t.deps.db, clock, logger, keyRing: t.deps.keyRing, sender },
    { concurrency: 4, pollIntervalMs: 60_000, tenantIds: [tenant.tenantId] },
  );
});
afterEach(() => receiver.close());

const orderEntity = (status = 'confirmed') => ({
  id: `order_${randomUUID()}`,
  checkout_id: `chk_${randomUUID()}`,
  permalink_url: 'https://shop.example/orders/1',
  status,
  line_items: [{ id: 'li_1', item: { id: 'prod_1', title: 'Mug', price: 1200 }, quantity: { total: 2 } }],
  totals: [{ type: 'total', amount: 2400 }],
});

function enqueue(body: object, url = receiver.url, eventType = 'order_created') {
  const ctx = systemContext(tenant.tenantId, `test-${randomUUID()}`);
  return runUnitOfWork(t.deps, ctx, mintedKey(), (u) =>
    enqueuePlatformDelivery(u, { url, eventType, body, signing: 'ucp', agentProfileUrl: PROFILE }),
  );
}

/** Verifies the receipt's RFC 9421 signature with the library, the key found by `keyid` among the seller's public JWKs. */
async function signatureVerifies(receipt: Receipt): Promise<boolean | null> {
  const keys = await sellerSigningKeys(t.deps, tenant.tenantId);
  const headers = Object.fromEntries(
    Object.entries(receipt.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : String(value),
    ]),
  );
  return httpbis.verifyMessage(
    {
      keyLookup: async (params) => {
        const found = keys.find((k) => k.kid === params.keyid);
        if (!found) return null;
        const publicKey = createPublicKey({ key: found.publicJwk, format: 'jwk' });
        return {
          id: found.kid,
          algs: ['ecdsa-p256-sha256'],
          verify: createVerifier(publicKey, 'ecdsa-p256-sha256'),
        };
      },
      requiredFields: ['@method', '@authority', '@path', 'content-digest', 'content-type', 'ucp-agent'],
      requiredParams: ['keyid', 'created'],
      // Signed at the test clock's time, which is not the wall clock's.
      notAfter: new Date(clock.now().getTime() + 5_000),
    },
    { method: 'POST', url: receiver.url, headers },
  );
}

const digestOf = (body: string) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;

describe('platform deliveries (UCP)', () => {
  it('POSTs the body signed with the seller key: the signature verifies with the public JWK, Content-Digest matches', async () => {
    const entity = orderEntity();
    const queued = await enqueue(entity);
    expect(await worker.drain()).toBe(1);

    expect(receiver.receipts).toHaveLength(1);
    const [receipt] = receiver.receipts as [Receipt];
    expect(JSON.parse(receipt.body)).toEqual(entity);
    expect(receipt.headers['content-type']).toBe('application/json');
    expect(receipt.headers['ucp-agent']).toBe(`profile="${PROFILE}"`);
    expect(receipt.headers['webhook-id']).toBe(queued.id);
    expect(receipt.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000)));
    expect(receipt.headers['content-digest']).toBe(digestOf(receipt.body));

    const [key] = await sellerSigningKeys(t.deps, tenant.tenantId);
    const input = parseDictionary(String(receipt.headers['signature-input']));
    const [components, params] = input.get('sig1') as [
      [string, Map<string, unknown>][],
      Map<string, unknown>,
    ];
    expect(components.map(([name]) => name)).toEqual([
      '@method',
      '@authority',
      '@path',
      'ucp-agent',
      'content-digest',
      'content-type',
    ]);
    expect(params.get('keyid')).toBe(key?.kid);
    expect(params.get('created')).toBe(Math.floor(clock.now().getTime() / 1000));
    expect(params.has('alg')).toBe(false);
    expect(String(receipt.headers.signature)).toMatch(/^sig1=:[A-Za-z0-9+/]{86}==:$/);

    expect(await signatureVerifies(receipt)).toBe(true);
    // A changed body no longer matches its digest; a changed digest no longer matches the signature.
    expect(digestOf(`${receipt.body} `)).not.toBe(receipt.headers['content-digest']);
    const forged = { ...receipt, headers: { ...receipt.headers, 'content-digest': digestOf('{}') } };
    expect(await signatureVerifies(forged)).toBe(false);
  });

  it('retries after a 500 from the platform, each attempt signed anew; the attempts are logged', async () => {
    receiver.setResponder((n) => (n === 1 ? { status: 500, body: 'try later' } : { status: 200 }));
    await enqueue(orderEntity('processing'), receiver.url, 'order_updated');
    expect(await worker.drain()).toBe(1);
    expect(receiver.receipts).toHaveLength(1);
    clock.advance(1_000);
    expect(await worker.drain()).toBe(0);
    clock.advance(1_000);
    expect(await worker.drain()).toBe(1);
    expect(receiver.receipts).toHaveLength(2);
    const [first, second] = receiver.receipts as [Receipt, Receipt];
    expect(second.body).toBe(first.body);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.headers['signature-input']).not.toBe(first.headers['signature-input']);
    for (const receipt of receiver.receipts) expect(await signatureVerifies(receipt)).toBe(true);
    const attempts = await t.deps.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.tenantId, tenant.tenantId))
      .orderBy(webhookAttempts.attempt);
    expect(attempts.map((a) => [a.attempt, a.responseStatus, a.responseBody])).toEqual([
      [1, 500, 'try later'],
      [2, 200, 'answer 200'],
    ]);
  });

  it('signs with the new key after a rotation, and publishes both keys meanwhile', async () => {
    await enqueue(orderEntity());
    await worker.drain();
    const before = await sellerSigningKeys(t.deps, tenant.tenantId);
    const rotated = await rotateSellerSigningKey(t.deps, tenant.tenantId);
    expect(rotated.retiredKid).toBe(before[0]?.kid);
    await enqueue(orderEntity('canceled'), receiver.url, 'order_updated');
    await worker.drain();
    const keyids = receiver.receipts.map((r) =>
      (
        parseDictionary(String(r.headers['signature-input'])).get('sig1') as [unknown, Map<string, unknown>]
      )[1].get('keyid'),
    );
    expect(keyids).toEqual([rotated.retiredKid, rotated.kid]);
    for (const receipt of receiver.receipts) expect(await signatureVerifies(receipt)).toBe(true);
  });

  it('one platform target per URL, hidden from the webhook API', async () => {
    await enqueue(orderEntity());
    await enqueue(orderEntity(), receiver.url, 'order_updated');
    expect(await worker.drain()).toBe(2);
    const listed = await api(t, tenant.keys.read).get('/webhooks');
    expect(listed.json().data).toEqual([]);
    const targets = await t.deps.db
      .select()
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.tenantId, tenant.tenantId));
    expect(targets.map((s) => [s.format, s.url, s.agentProfileUrl, s.secretCiphertext])).toEqual([
      ['ucp', receiver.url, PROFILE, null],
    ]);
    const delivered = await t.deps.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.tenantId, tenant.tenantId));
    expect(delivered.map((d) => [d.subscriptionId, d.eventType, d.status]).sort()).toEqual([
      [targets[0]?.id, 'ucp.order_created', 'succeeded'],
      [targets[0]?.id, 'ucp.order_updated', 'succeeded'],
    ]);
    const id = targets[0]?.id as string;
    const read = api(t, tenant.keys.read);
    expect((await read.get(`/webhooks/${id}`)).statusCode).toBe(404);
    expect((await read.get(`/webhooks/${id}/deliveries`)).statusCode).toBe(404);
    const deliveryPath = `/webhooks/${id}/deliveries/${delivered[0]?.eventId}`;
    expect((await read.get(deliveryPath)).statusCode).toBe(404);
    expect((await api(t, tenant.keys.commerce).post(`${deliveryPath}/replay`)).statusCode).toBe(404);
    expect((await api(t, tenant.keys.commerce).delete(`/webhooks/${id}`)).statusCode).toBe(404);
  });

  it('refuses a URL that is not https (http only to a loopback host), naming webhook_url', async () => {
    await expect(enqueue(orderEntity(), 'http://platform.example/hooks')).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'webhook_url', rule: 'https' }],
    });
    await expect(enqueue(orderEntity(), 'https://user:pw@platform.example/hooks')).rejects.toBeInstanceOf(
      AppError,
    );
    expect(await platformUrlProblem('http://localhost:8080/hooks', true)).toBeUndefined();
    expect(await platformUrlProblem('http://localhost:8080/hooks', false)).toMatchObject({
      field: 'webhook_url',
      rule: 'https',
    });
    expect(await platformUrlProblem('https://127.0.0.1/hooks', false)).toMatchObject({
      rule: 'public_target',
    });
    expect(await platformUrlProblem('https://10.1.2.3/hooks', false)).toMatchObject({
      rule: 'public_target',
    });
    expect(await platformUrlProblem('https://93.184.215.14/hooks', false)).toBeUndefined();
  });

  it('a loopback platform is refused at sending unless private targets are allowed', async () => {
    const strict = createSender({ allowPrivateTargets: false, caFile: TEST_CA_FILE });
    try {
      const strictWorker = new DeliveryWorker(
        { db: t.deps.db, clock, logger, keyRing: t.deps.keyRing, sender: strict },
        { concurrency: 1, pollIntervalMs: 60_000, tenantIds: [tenant.tenantId] },
      );
      await enqueue(orderEntity());
      expect(await strictWorker.drain()).toBe(1);
      expect(receiver.receipts).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});
